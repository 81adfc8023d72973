import { clock } from '../format.ts';
import type { Player } from '../player.ts';
import type { Segment } from '../types.ts';
import { type SpeakerChoice, SpeakerChooser, SplitPicker, TextEditor } from './segment-editors.tsx';

export type SegmentMode = 'text' | 'speaker' | 'split';

/** The words of a segment, those the recogniser was unsure of marked (and said so to screen readers). */
export function SegmentText({ words }: { words: Array<{ text: string; unsure: boolean }> }) {
  return (
    <>
      {words.map((word, index) => (
        <span key={index}>
          {index > 0 && ' '}
          {word.unsure ? (
            <span class="unsure">
              {word.text}
              <span class="visually-hidden"> (unsure)</span>
            </span>
          ) : (
            word.text
          )}
        </span>
      ))}
    </>
  );
}

interface Props {
  segment: Segment;
  index: number;
  label: string;
  name: string;
  colour: number;
  words: Array<{ text: string; unsure: boolean }>;
  isLast: boolean;
  playing: boolean;
  mode: SegmentMode | null;
  speakers: SpeakerChoice[];
  newLabel: string;
  player: Player;
  onMode(mode: SegmentMode | null): void;
  onText(text: string): void;
  onSpeaker(label: string): void;
  onSplit(atWord: number): void;
  onMerge(): void;
}

/**
 * One segment: its time (plays from there), its speaker, its words; a small toolbar, shown on hover
 * and keyboard focus, corrects the text, changes the speaker, splits it at a word or merges it with
 * the next. The toolbar's buttons name the segment for screen readers.
 */
export function SegmentRow(props: Props) {
  const { segment, index, mode, player } = props;
  const at = clock(segment.start_ms);
  return (
    <li
      id={`segment-${index}`}
      tabIndex={-1}
      class={`segment speaker-${props.colour}${props.playing ? ' playing' : ''}`}
      aria-current={props.playing ? 'true' : undefined}
      data-start={segment.start_ms}
      data-speaker-label={props.label}
    >
      <button type="button" class="time" onClick={() => player.playFrom(segment.start_ms)}>
        <span class="visually-hidden">Play from </span>
        {at}
      </button>
      <span class="speaker">{props.name}</span>
      {mode === 'text' ? (
        <TextEditor segment={segment} onSave={props.onText} onCancel={() => props.onMode(null)} />
      ) : mode === 'split' ? (
        <SplitPicker
          segment={segment}
          words={props.words.map((word) => word.text)}
          onSplit={props.onSplit}
          onCancel={() => props.onMode(null)}
        />
      ) : (
        <p class="text">
          <SegmentText words={props.words} />
        </p>
      )}
      {mode === 'speaker' && (
        <SpeakerChooser
          segment={segment}
          current={props.label}
          speakers={props.speakers}
          newLabel={props.newLabel}
          onSave={props.onSpeaker}
          onCancel={() => props.onMode(null)}
        />
      )}
      {mode === null && (
        <div class="tools">
          <button type="button" class="quiet edit" onClick={() => props.onMode('text')}>
            Correct<span class="visually-hidden"> the segment at {at}</span>
          </button>
          <button type="button" class="quiet" onClick={() => props.onMode('speaker')}>
            Speaker<span class="visually-hidden"> — change who says the segment at {at}</span>
          </button>
          {props.words.length > 1 && (
            <button type="button" class="quiet" onClick={() => props.onMode('split')}>
              Split<span class="visually-hidden"> the segment at {at}</span>
            </button>
          )}
          {!props.isLast && (
            <button type="button" class="quiet" onClick={props.onMerge}>
              Merge<span class="visually-hidden"> the segment at {at} with the next</span>
            </button>
          )}
        </div>
      )}
    </li>
  );
}
