import { useMemo, useState } from 'preact/hooks';
import { clock } from '../format.ts';
import { memo } from '../memo.ts';
import { useSegmentPlaying } from '../player/hooks.ts';
import type { Playback } from '../player/playback.ts';
import { wordsOf } from '../speakers.ts';
import type { Segment, TimedWord } from '../types.ts';
import { moveInRow } from './row-keys.ts';
import { type SpeakerChoice, SpeakerChooser, SplitPicker, TextEditor } from './segment-editors.tsx';
import { PlayingText, SegmentText } from './segment-text.tsx';
import { useSingleClick } from './single-click.ts';
import { wordAt } from './word-at.ts';

export type SegmentMode = 'text' | 'speaker' | 'split';

/** What a row asks of the transcript; one object for all rows, the same from render to render. */
export interface RowActions {
  open(key: string, mode: SegmentMode): void;
  /** Closes the row's editor; `refocus` puts the focus back on the row (not when it went elsewhere). */
  close(key: string, index: number, refocus: boolean): void;
  text(index: number, text: string): Promise<boolean>;
  /** Gives the segment, and the `following` segments after it, to `label`. */
  speaker(index: number, label: string, following: number): void;
  /** Shift-click or Shift+arrow: selects from the last segment selected to this one (several at once). */
  select(index: number): void;
  split(index: number, atWord: number): void;
  merge(index: number): void;
}

interface Props {
  segment: Segment;
  index: number;
  rowKey: string;
  label: string;
  name: string;
  colour: number;
  isLast: boolean;
  mode: SegmentMode | null;
  /** Just corrected: says "Saved" for a moment. */
  saved: boolean;
  speakers: SpeakerChoice[];
  newLabel: string;
  /** Segments right after this one with its speaker: "up to the next change of speaker" covers them. */
  following: number;
  /** Part of the segments selected to be given to one speaker. */
  selected: boolean;
  playback: Playback;
  actions: RowActions;
}

/** Where a word starts: its own timing, else its share of the segment's time. */
function startOf(segment: Segment, timed: readonly TimedWord[] | undefined, word: number, count: number) {
  const own = timed?.[word]?.start_ms;
  if (own !== undefined) return own;
  return Math.round(segment.start_ms + ((segment.end_ms - segment.start_ms) * word) / Math.max(1, count));
}

/**
 * One segment: its time (plays from there), its speaker, its words. A click on a word plays from it
 * and leaves the keyboard to the player (Space pauses), as in Otter or Descript; correcting is its
 * own gesture: a double click on the words (caret at that place), Enter on the row, or Edit in the
 * small toolbar, shown on hover and keyboard focus, which also changes the speaker, splits the
 * segment at a word or merges it with the next. Drawn again only when its own props change, or when it starts
 * or stops playing.
 */
export const SegmentRow = memo(function SegmentRow(props: Props) {
  const { segment, index, mode, playback, actions, rowKey } = props;
  const at = clock(segment.start_ms);
  const playing = useSegmentPlaying(playback, index);
  const words = useMemo(() => wordsOf(segment), [segment]);
  const timed = segment.words?.length === words.length ? segment.words : undefined;
  const [caret, setCaret] = useState<number | null>(null);
  const singleClick = useSingleClick();
  const openText = (at: number | null) => {
    setCaret(at);
    actions.open(rowKey, 'text');
  };
  const close = () => actions.close(rowKey, index, true);
  return (
    // One Tab stop per segment: Enter on it edits, the arrows reach its controls; Space stays the player's.
    <li
      id={`segment-${index}`}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a row the keyboard moves through, as a grid row is
      tabIndex={0}
      aria-describedby="correct-hint"
      class={`segment speaker-${props.colour}${playing ? ' playing' : ''}${props.selected ? ' selected' : ''}`}
      aria-current={playing ? 'true' : undefined}
      data-start={segment.start_ms}
      data-speaker-label={props.label}
      onKeyDown={(event) => {
        if (event.target === event.currentTarget && event.key === 'Enter' && mode === null) {
          event.preventDefault();
          openText(null);
        } else if (
          event.target === event.currentTarget &&
          event.shiftKey &&
          /^Arrow(Up|Down)$/.test(event.key)
        ) {
          // Shift+↑ ↓ select as they move, as in a list of files.
          const down = event.key === 'ArrowDown';
          const sibling = down
            ? event.currentTarget.nextElementSibling
            : event.currentTarget.previousElementSibling;
          if (!(sibling instanceof HTMLElement)) return;
          event.preventDefault();
          if (!props.selected) actions.select(index);
          actions.select(down ? index + 1 : index - 1);
          sibling.focus();
        } else if (moveInRow(event, event.currentTarget)) event.preventDefault();
      }}
      onClickCapture={(event) => {
        // Shift-click selects (and plays nothing, opens nothing), wherever in the row it lands.
        if (!event.shiftKey || mode !== null) return;
        event.preventDefault();
        event.stopPropagation();
        window.getSelection()?.removeAllRanges();
        actions.select(index);
      }}
    >
      {/* The row's header line: when, who, and the tools, in a space of their own (never over the words). */}
      <div class="segment-head">
        {/* Names as aria-labels, not hidden spans: a two-hour transcript has a thousand of each. */}
        <button
          type="button"
          class="time"
          tabIndex={-1}
          aria-label={`Play from ${at}`}
          onClick={() => playback.playFrom(segment.start_ms)}
        >
          {at}
        </button>
        <span class="speaker">{props.name}</span>
        {props.selected && <span class="visually-hidden">, selected</span>}
        {props.saved && mode === null && <span class="saved">Saved</span>}
        {mode === null && (
          <div class="tools">
            <button
              type="button"
              class="quiet"
              tabIndex={-1}
              aria-label={`Edit — correct the words of the segment at ${at}`}
              onClick={() => openText(null)}
            >
              Edit
            </button>
            <button
              type="button"
              class="quiet"
              tabIndex={-1}
              aria-label={`Speaker — change who says the segment at ${at}`}
              onClick={() => actions.open(rowKey, 'speaker')}
            >
              Speaker
            </button>
            {words.length > 1 && (
              <button
                type="button"
                class="quiet"
                tabIndex={-1}
                aria-label={`Split the segment at ${at}`}
                onClick={() => actions.open(rowKey, 'split')}
              >
                Split
              </button>
            )}
            {!props.isLast && (
              <button
                type="button"
                class="quiet"
                tabIndex={-1}
                aria-label={`Merge the segment at ${at} with the next`}
                onClick={() => actions.merge(index)}
              >
                Merge
              </button>
            )}
          </div>
        )}
      </div>
      {mode === 'text' ? (
        <TextEditor
          segment={segment}
          caret={caret}
          onSave={(text) => actions.text(index, text)}
          onCancel={close}
          onLeave={() => actions.close(rowKey, index, false)}
        />
      ) : mode === 'split' ? (
        <SplitPicker
          segment={segment}
          words={words.map((word) => word.text)}
          onSplit={(atWord) => actions.split(index, atWord)}
          onCancel={close}
        />
      ) : (
        // Plays from the word clicked, and nothing more: the keys stay the player's (Space pauses).
        // A double click (which plays nothing), Enter on the row or its Edit control opens the words
        // for correction.
        // biome-ignore lint/a11y/noStaticElementInteractions: the row (focusable) and its Edit button give the keyboard the same
        // biome-ignore lint/a11y/useKeyWithClickEvents: idem
        <div
          class="text"
          onClick={(event) => {
            // A drag that selects words (to copy them) plays nothing, nor does a double click.
            const hit = wordAt(event.currentTarget, event.clientX, event.clientY);
            const collapsed = window.getSelection()?.isCollapsed ?? true;
            singleClick(event, () => {
              if (hit && collapsed) playback.playFrom(startOf(segment, timed, hit.word, words.length));
            });
          }}
          onDblClick={(event) => {
            window.getSelection()?.removeAllRanges();
            openText(wordAt(event.currentTarget, event.clientX, event.clientY)?.char ?? null);
          }}
        >
          {playing ? (
            <PlayingText words={words} timed={timed} playback={playback} />
          ) : (
            <SegmentText words={words} />
          )}
        </div>
      )}
      {mode === 'speaker' && (
        <SpeakerChooser
          segment={segment}
          current={props.label}
          speakers={props.speakers}
          newLabel={props.newLabel}
          following={props.following}
          onSave={(label, following) => actions.speaker(index, label, following)}
          onCancel={close}
        />
      )}
    </li>
  );
});
