import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useApp } from '../context.ts';
import { type Saved, type TranscriptEdit, type TranscriptState, useCorrections } from '../corrections.ts';
import { clock } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { noticeWords } from '../notice-words.ts';
import type { Playback } from '../player/playback.ts';
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
import type { Segment, VoiceMatch, VoiceProfiles } from '../types.ts';
import { KnownVoices, type RememberOffer } from './known-voices.tsx';
import { type RowActions, type SegmentMode, SegmentRow } from './segment-row.tsx';
import { SelectionBar } from './selection-bar.tsx';
import { SimilarSuggestion, type Suggestion } from './similar-suggestion.tsx';
import { SpeakerName } from './speaker-name.tsx';
import { useFollowPlayback } from './transcript-follow.ts';

const PALETTE_SIZE = 8;
/** Rows drawn at once (more than a tall screen holds), then the rest in slices, one task each. */
const FIRST_ROWS = 60;
const ROWS_PER_SLICE = 200;
const SAVED_SHOWN_MS = 3000;

interface Props {
  noteId: string;
  /** The transcript and its ETag: corrections are sent against it, so a concurrent edit is never overwritten. */
  transcript: TranscriptState;
  /** The note's ETag: speaker names are the note's, renamed against it. */
  noteEtag: string | null;
  speakerNames: Record<string, string>;
  /** Speakers named after a voice the account keeps (voice profiles). */
  voiceMatches: Record<string, VoiceMatch>;
  playback: Playback;
  /** After a change: show what the answer holds, then reload the note and its transcript. */
  onSaved(saved: Saved): void;
}

function anyUnsure(segments: readonly Segment[]): boolean {
  return segments.some((segment) => wordsOf(segment).some((word) => word.unsure));
}

/**
 * The transcript as a list of segments: speakers in distinct colours, the playing segment and word
 * highlighted and kept in view. Speakers are renamed by their label; a segment's text is corrected
 * by clicking it, its speaker changed, split at a word or merged with the next in place, and each
 * correction undone. Words the recogniser was unsure of are underlined. A long transcript is drawn a
 * slice at a time, so its first screen shows at once.
 */
export function TranscriptView({
  noteId,
  transcript,
  noteEtag,
  speakerNames,
  voiceMatches,
  playback,
  onSaved,
}: Props) {
  const { api } = useApp();
  // Voices can be kept only from a transcript whose speakers a voice model told apart, and only
  // when the account keeps voice profiles.
  const byVoiceModel = transcript.data.speakers_by?.startsWith('voice-model:') ?? false;
  const voiceProfiles = useLoad(`voice-profiles:${byVoiceModel}`, async () =>
    byVoiceModel ? (await api.request<VoiceProfiles>('/v1/account/voice-profiles')).data : null,
  );
  const [rememberOffer, setRememberOffer] = useState<RememberOffer | null>(null);
  const corrections = useCorrections({ noteId, transcript, noteEtag, speakerNames, onSaved });
  // After a change of speaker: the other segments in a voice like the new speaker's, to give them too.
  const [suggestion, setSuggestion] = useState<Suggestion | null>(null);
  // Segments selected (shift-click, Shift+↑ ↓) to be given to one speaker at once, from `anchor`.
  const [selection, setSelection] = useState<{ anchor: number; indexes: number[]; layout: string } | null>(
    null,
  );
  const canUndo = corrections.renameToUndo || (transcript.data.revision ?? 0) > 0;
  // The open editor, by its segment's key: it stays on its segment when a split or merge moves it.
  const [active, setActive] = useState<{ key: string; mode: SegmentMode } | null>(null);
  const activeNow = useRef(active);
  activeNow.current = active;
  const [focusRow, setFocusRow] = useState<number | null>(null);
  const [savedKey, setSavedKey] = useState<string | null>(null);
  const transcription = transcript.data;
  const segments = transcription.conversation_segments;
  const [shown, setShown] = useState(FIRST_ROWS);
  const keys = useMemo(() => segmentKeys(segments), [segments]);
  const labels = useMemo(() => labelsOf(segments, speakerNames), [segments, speakerNames]);
  const speakers = useMemo(
    () => labels.map((label) => ({ label, name: nameOf(label, speakerNames) })),
    [labels, speakerNames],
  );
  const newLabel = nextFreeLabel(labels, speakerNames);
  const following = useMemo(() => followingSameSpeaker(segments), [segments]);
  const unsure = useMemo(() => anyUnsure(segments), [segments]);
  const colour = (label: string) => colourOf(label, labels, PALETTE_SIZE);

  useEffect(() => playback.setTimeline(segments), [playback, segments]);
  // The rest of a long transcript, a slice per task: the page answers between slices.
  useEffect(() => {
    if (shown >= segments.length) return;
    const timer = setTimeout(() => setShown((count) => count + ROWS_PER_SLICE), 0);
    return () => clearTimeout(timer);
  }, [shown, segments.length]);
  useFollowPlayback(playback, () => setShown(Number.POSITIVE_INFINITY));

  // After a correction the row is drawn anew: focus goes back to it, not to the top of the page,
  // in the same task (a layout effect), so no key press lands between the two.
  useLayoutEffect(() => {
    if (focusRow === null) return;
    document.getElementById(`segment-${Math.min(focusRow, segments.length - 1)}`)?.focus();
    setFocusRow(null);
  }, [focusRow, segments.length]);

  useEffect(() => {
    if (savedKey === null) return;
    const timer = setTimeout(() => setSavedKey(null), SAVED_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [savedKey]);

  // A selection is of the segments as they were: a split or a merge ends it (a reload of the same
  // segments does not).
  const layout = keys.join('\n');
  const selected = selection?.layout === layout ? selection : null;

  // An editor whose segment is gone (merged into the one before) closes.
  const activeGone = active !== null && !keys.includes(active.key);
  useEffect(() => {
    if (activeGone) setActive(null);
  }, [activeGone]);

  // What the rows call, read through a ref: one object for good, so no row is drawn again for it.
  const current = useRef({ keys, segments, speakerNames, corrections, api, noteId });
  current.current = { keys, segments, speakerNames, corrections, api, noteId };
  const actions = useMemo<RowActions>(() => {
    const edit = async (index: number, edits: TranscriptEdit[], what: string, done: string) => {
      const key = current.current.keys[index];
      if (!(await current.current.corrections.edit(edits, what, done))) return false;
      // Only this row's editor closes: one opened on another row meanwhile (while the change waited or
      // was saved) stays open with what was typed in it, and keeps the focus.
      const open = activeNow.current;
      if (open !== null && open.key !== key) return true;
      setActive(null);
      setFocusRow(index);
      return true;
    };
    const at = (index: number) => clock(current.current.segments[index]?.start_ms ?? 0);
    return {
      select: (index) =>
        setSelection((previous) => {
          const layout = current.current.keys.join('\n');
          const now = previous?.layout === layout ? previous : null;
          if (index < 0 || index >= current.current.segments.length) return now;
          // Shift-click on the only segment selected takes it back.
          if (!now || (now.indexes.length === 1 && now.anchor === index)) {
            return now ? null : { anchor: index, indexes: [index], layout };
          }
          const from = Math.min(now.anchor, index);
          const to = Math.max(now.anchor, index);
          const indexes = Array.from({ length: to - from + 1 }, (_, i) => from + i);
          return { anchor: now.anchor, indexes, layout };
        }),
      open: (key, mode) => setActive({ key, mode }),
      close: (key, index, refocus) => {
        if (activeNow.current?.key !== key) return;
        setActive(null);
        if (refocus) setFocusRow(index);
      },
      text: async (index, text) => {
        const key = current.current.keys[index] ?? null;
        const done = await edit(
          index,
          [{ op: 'replace_text', segment: index, text }],
          `the correction at ${at(index)}`,
          'Correction saved',
        );
        if (done) setSavedKey(key);
        return done;
      },
      speaker: async (index, speaker, following) => {
        const name = nameOf(speaker, current.current.speakerNames);
        const given = Array.from({ length: following + 1 }, (_, i) => index + i);
        const done = await edit(
          index,
          following === 0
            ? [{ op: 'set_speaker', segment: index, speaker }]
            : [{ op: 'set_speakers', segments: given, speaker }],
          `the change of speaker at ${at(index)}`,
          following === 0
            ? `The segment at ${at(index)} is now said by ${name}`
            : `${given.length} segments from ${at(index)} are now said by ${name}`,
        );
        if (done) setSuggestion(await similarTo(current.current, speaker, given));
      },
      split: (index, atWord) => {
        const word = current.current.segments[index]?.text.split(/\s+/).filter(Boolean)[atWord] ?? '';
        void edit(
          index,
          [{ op: 'split', segment: index, at_word: atWord }],
          `the split at ${at(index)}`,
          `Split in two before “${word}”`,
        );
      },
      merge: (index) =>
        void edit(
          index,
          [{ op: 'merge', segment: index }],
          `the merge at ${at(index)}`,
          `The segment at ${at(index)} was merged with the next`,
        ),
    };
  }, []);

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
              others={speakers.filter((other) => other.label !== speaker.label)}
              onRename={async (name) => {
                const done = await corrections.rename(speaker.label, name);
                if (!done) return false;
                // A speaker just named: their voice to keep, unless it is kept already.
                if (voiceProfiles.data?.enabled && voiceMatches[speaker.label]?.status !== 'confirmed') {
                  const same = voiceProfiles.data.profiles.find(
                    (profile) => profile.name.toLowerCase() === name.toLowerCase(),
                  );
                  setRememberOffer({ label: speaker.label, name, profileId: same?.profile_id ?? null });
                }
                // And the segments other speakers have in a voice like theirs.
                setSuggestion(await similarTo(current.current, speaker.label, undefined));
                return true;
              }}
              onMerge={(into) =>
                corrections.edit(
                  [{ op: 'merge_speakers', speaker: speaker.label, into }],
                  `the merge of ${speaker.name} into ${speakers.find((other) => other.label === into)?.name ?? into}`,
                  `${speaker.name} and ${speakers.find((other) => other.label === into)?.name ?? into} are now one speaker`,
                )
              }
            />
          ))}
        </div>
      </div>
      {/* A line of its own, always there: "Saving…" appears beside Undo without moving the words below. */}
      {(canUndo || segments.length > 0) && (
        <div class="corrections-line">
          <button
            type="button"
            class="quiet"
            disabled={!canUndo}
            onClick={() => {
              // What an undone rename offered to keep goes with it.
              setRememberOffer(null);
              void corrections.undo();
            }}
          >
            Undo last correction
          </button>
          <p class="pending" role="status">
            {corrections.pending}
          </p>
        </div>
      )}
      {suggestion && suggestion.etag === transcript.etag && (
        <SimilarSuggestion
          suggestion={suggestion}
          name={nameOf(suggestion.label, speakerNames)}
          segments={segments}
          onApply={async () => {
            const { label, segments: indexes } = suggestion;
            const name = nameOf(label, speakerNames);
            setSuggestion(null);
            await corrections.edit(
              [{ op: 'set_speakers', segments: indexes, speaker: label }],
              `giving ${indexes.length} similar segments to ${name}`,
              `${indexes.length} more segments are now said by ${name}`,
            );
          }}
          onDismiss={() => setSuggestion(null)}
        />
      )}
      <KnownVoices
        noteId={noteId}
        matches={voiceMatches}
        labels={labels}
        offer={rememberOffer}
        onOfferDone={(kept) => {
          setRememberOffer(null);
          if (kept) voiceProfiles.reload();
        }}
        onSaved={onSaved}
      />
      {transcription.notice && (
        <p class="notice" id="transcript-notice">
          {noticeWords(transcription.notice, transcription.confidence)}
        </p>
      )}
      {segments.length === 0 && !transcription.notice && <p class="empty">No words were recognised.</p>}
      {segments.length > 0 && (
        <button type="button" class="skip-inline" onClick={skipToExport}>
          Skip to export and manage
        </button>
      )}
      {segments.length > 0 && (
        <p class="meta hint" id="correct-hint">
          Click a word to play from it; double-click the words to correct them; shift-click segments to give
          several to one speaker. From the keyboard, each segment is one Tab stop: Enter corrects it, ← →
          reach its controls, ↑ ↓ the next segments, Shift+↑ ↓ select them.
        </p>
      )}
      {unsure && (
        <p class="legend meta">
          <span class="unsure">Dotted underline</span>: the recogniser was unsure of these words (confidence
          under {Math.round(UNSURE_BELOW * 100)} %). Listen to those passages to check them.
        </p>
      )}
      <ol class="segments" aria-busy={corrections.pending !== null || shown < segments.length}>
        {segments.slice(0, shown).map((segment, index) => {
          const label = labelOf(segment, speakerNames);
          const key = keys[index] ?? `${index}`;
          return (
            <SegmentRow
              key={key}
              rowKey={key}
              segment={segment}
              index={index}
              label={label}
              name={nameOf(label, speakerNames)}
              colour={colour(label)}
              isLast={index === segments.length - 1}
              mode={active?.key === key ? active.mode : null}
              saved={savedKey === key}
              speakers={speakers}
              newLabel={newLabel}
              following={following[index] ?? 0}
              selected={selected?.indexes.includes(index) ?? false}
              playback={playback}
              actions={actions}
            />
          );
        })}
      </ol>
      {selected && (
        <SelectionBar
          count={selected.indexes.length}
          speakers={speakers}
          newLabel={newLabel}
          onGive={async (label) => {
            const indexes = selected.indexes;
            const name = nameOf(label, speakerNames);
            setSelection(null);
            const done = await corrections.edit(
              [{ op: 'set_speakers', segments: indexes, speaker: label }],
              `giving ${indexes.length} segments to ${name}`,
              `${indexes.length} segments are now said by ${name}`,
            );
            if (done) setSuggestion(await similarTo(current.current, label, indexes));
          }}
          onClear={() => setSelection(null)}
        />
      )}
    </section>
  );
}

/** For each segment, how many right after it have its speaker (up to the next change). */
function followingSameSpeaker(segments: readonly Segment[]): number[] {
  const counts = new Array<number>(segments.length).fill(0);
  for (let i = segments.length - 2; i >= 0; i--) {
    if (segments[i]?.speaker_label === segments[i + 1]?.speaker_label) counts[i] = (counts[i + 1] ?? 0) + 1;
  }
  return counts;
}

/**
 * The segments findSimilarSegments proposes to give to `label` too, or null: none, or a transcript
 * that keeps no voices (made before they were kept, or by Amazon Transcribe), which is not an error
 * to show after a change that worked.
 */
async function similarTo(
  context: { api: ReturnType<typeof useApp>['api']; noteId: string },
  label: string,
  /** The segments just given to the speaker; undefined: all of theirs. */
  examples: number[] | undefined,
): Promise<Suggestion | null> {
  try {
    const answer = await context.api.request<{
      speaker_label: string;
      segments: { segment: number }[];
      etag: string;
    }>(`/v1/notes/${context.noteId}/transcription/similar-segments`, {
      method: 'POST',
      body: { speaker: label, ...(examples ? { examples } : {}) },
    });
    const segments = answer.data.segments.map((segment) => segment.segment);
    return segments.length > 0
      ? { label: answer.data.speaker_label, segments, etag: answer.data.etag }
      : null;
  } catch {
    return null;
  }
}

/** Past a long transcript to what follows it (the hash is the router's: a button, not a link). */
function skipToExport() {
  const heading = document.getElementById('exports-title') ?? document.getElementById('actions-title');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}
