import { useEffect, useRef, useState } from 'preact/hooks';
import { type Saved, type TranscriptEdit, type TranscriptState, useCorrections } from '../corrections.ts';
import { clock } from '../format.ts';
import type { Player } from '../player.ts';
import {
  colourOf,
  labelOf,
  labelsOf,
  nameOf,
  nextFreeLabel,
  segmentKeys,
  UNSURE_BELOW,
  wordsOf,
} from '../speakers.ts';
import { type SegmentMode, SegmentRow } from './segment-row.tsx';
import { SpeakerName } from './speaker-name.tsx';

const PALETTE_SIZE = 8;

interface Props {
  noteId: string;
  /** The transcript and its ETag: corrections are sent against it, so a concurrent edit is never overwritten. */
  transcript: TranscriptState;
  /** The note's ETag: speaker names are the note's, renamed against it. */
  noteEtag: string | null;
  speakerNames: Record<string, string>;
  player: Player;
  /** After a change: show what the answer holds, then reload the note and its transcript. */
  onSaved(saved: Saved): void;
}

/**
 * The transcript as a list of segments: speakers in distinct colours, a click plays from the segment,
 * the playing one is highlighted. Speakers are renamed by their label; a segment is corrected, given
 * another speaker, split at a word or merged with the next in place, and each correction undone.
 * Words the recogniser was unsure of are underlined.
 */
export function TranscriptView({ noteId, transcript, noteEtag, speakerNames, player, onSaved }: Props) {
  const corrections = useCorrections({ noteId, transcript, noteEtag, speakerNames, onSaved });
  const canUndo = corrections.renameToUndo || (transcript.data.revision ?? 0) > 0;
  // The open editor, by its segment's key: it stays on its segment when a split or merge moves it.
  const [active, setActive] = useState<{ key: string; mode: SegmentMode } | null>(null);
  const activeNow = useRef(active);
  activeNow.current = active;
  const [focusRow, setFocusRow] = useState<number | null>(null);
  const transcription = transcript.data;
  const segments = transcription.conversation_segments;
  const keys = segmentKeys(segments);
  const labels = labelsOf(segments, speakerNames);
  const speakers = labels.map((label) => ({ label, name: nameOf(label, speakerNames) }));
  const newLabel = nextFreeLabel(labels, speakerNames);
  const words = segments.map(wordsOf);
  const anyUnsure = words.some((list) => list.some((word) => word.unsure));

  const colour = (label: string) => colourOf(label, labels, PALETTE_SIZE);
  const playing = segments.findIndex(
    (segment) => player.positionMs >= segment.start_ms && player.positionMs < segment.end_ms,
  );

  // After a correction the row is drawn anew: focus goes back to it, not to the top of the page.
  useEffect(() => {
    if (focusRow === null) return;
    document.getElementById(`segment-${Math.min(focusRow, segments.length - 1)}`)?.focus();
    setFocusRow(null);
  }, [focusRow, segments.length]);

  // An editor whose segment is gone (merged into the one before) closes.
  const activeGone = active !== null && !keys.includes(active.key);
  useEffect(() => {
    if (activeGone) setActive(null);
  }, [activeGone]);

  const edit = async (index: number, edits: TranscriptEdit[], what: string, done: string) => {
    const key = keys[index];
    if (!(await corrections.edit(edits, what, done))) return;
    // Only this row's editor closes: one opened on another row meanwhile (while the change waited or
    // was saved) stays open with what was typed in it, and keeps the focus.
    const open = activeNow.current;
    if (open !== null && open.key !== key) return;
    setActive(null);
    setFocusRow(index);
  };

  return (
    <section aria-labelledby="transcript-title" class="transcript">
      <div class="section-head">
        <h2 id="transcript-title">Transcript</h2>
        <div class="actions">
          {speakers.map((speaker) => (
            <SpeakerName
              key={speaker.label}
              label={speaker.label}
              name={speaker.name}
              colour={colour(speaker.label)}
              onRename={(name) => corrections.rename(speaker.label, name)}
            />
          ))}
          {(canUndo || segments.length > 0) && (
            <button type="button" class="quiet" disabled={!canUndo} onClick={() => corrections.undo()}>
              Undo last correction
            </button>
          )}
        </div>
      </div>
      <p class="pending" role="status">
        {corrections.pending}
      </p>
      {transcription.notice && (
        <p class="notice" id="transcript-notice">
          {transcription.notice.detail}
        </p>
      )}
      {segments.length === 0 && !transcription.notice && <p class="empty">No words were recognised.</p>}
      {anyUnsure && (
        <p class="legend meta">
          <span class="unsure">Dotted underline</span>: the recogniser was unsure of these words (confidence
          under {Math.round(UNSURE_BELOW * 100)} %). Listen to those passages to check them.
        </p>
      )}
      <ol class="segments" aria-busy={corrections.pending !== null}>
        {segments.map((segment, index) => {
          const label = labelOf(segment, speakerNames);
          const at = clock(segment.start_ms);
          const key = keys[index] ?? `${index}`;
          return (
            <SegmentRow
              key={key}
              segment={segment}
              index={index}
              label={label}
              name={nameOf(label, speakerNames)}
              colour={colour(label)}
              words={words[index] ?? []}
              isLast={index === segments.length - 1}
              playing={index === playing}
              mode={active?.key === key ? active.mode : null}
              speakers={speakers}
              newLabel={newLabel}
              player={player}
              onMode={(mode) => {
                setActive(mode ? { key, mode } : null);
                if (!mode) setFocusRow(index);
              }}
              onText={(text) =>
                edit(
                  index,
                  [{ op: 'replace_text', segment: index, text }],
                  `the correction at ${at}`,
                  'Correction saved',
                )
              }
              onSpeaker={(speaker) =>
                edit(
                  index,
                  [{ op: 'set_speaker', segment: index, speaker }],
                  `the change of speaker at ${at}`,
                  `The segment at ${at} is now said by ${nameOf(speaker, speakerNames)}`,
                )
              }
              onSplit={(atWord) =>
                edit(
                  index,
                  [{ op: 'split', segment: index, at_word: atWord }],
                  `the split at ${at}`,
                  `Split in two before “${words[index]?.[atWord]?.text ?? ''}”`,
                )
              }
              onMerge={() =>
                edit(
                  index,
                  [{ op: 'merge', segment: index }],
                  `the merge at ${at}`,
                  `The segment at ${at} was merged with the next`,
                )
              }
            />
          );
        })}
      </ol>
    </section>
  );
}
