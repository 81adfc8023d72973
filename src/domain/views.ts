import type { Collection, CollectionRef } from './collection.ts';
import { collectionRef } from './collections.ts';
import { partedEntityTag } from './entity-tags.ts';
import type { Insights } from './insights.ts';
import { type Job, type JobStatusValue, type JobStatusView, jobStatusView } from './job.ts';
import type { InsightsView } from './named-results.ts';
import type { AudioInfo, Note, NoteEvent } from './note.ts';
import type { Shown } from './result-freshness.ts';
import { retentionEnds } from './retention-period.ts';
import { shownInsights } from './shown-insights.ts';
import type { Transcription } from './transcript.ts';
import { type TranscriptionView, transcriptionView } from './transcript-exports.ts';
import type { VoiceMatch } from './voice-profile.ts';

/** API shapes of a note (see NoteSummary and Note in openapi.yaml). */
export interface NoteSummaryView
  extends Pick<Note, 'note_id' | 'title' | 'state' | 'created_at' | 'updated_at' | 'trashed_at'> {
  transcription_status: JobStatusValue | 'none';
  /** When the retention deletes this trashed note for good; null otherwise. */
  deletes_at: number | null;
}

export interface NoteView extends NoteSummaryView {
  audio: AudioInfo | null;
  speaker_names: Record<string, string>;
  /** Speakers named after a known voice (voice profiles), by label: suggested until a person confirms. */
  voice_matches: Record<string, VoiceMatch>;
  /** The collections the note is filed in, by name. */
  collections: CollectionRef[];
  transcription_job: JobStatusView | null;
  /** Without the words of its segments: getTranscription has them. */
  transcription: TranscriptionView | null;
  /**
   * Present once generated (generateInsights); speakers named as the transcript names them, and
   * whether it is older than the transcript or the collections' instructions.
   */
  insights: Shown<InsightsView> | null;
  /** Kept by the person: no retention period moves it to the trash. */
  protected: boolean;
  /** When a collection's retention period moves the note to the trash, and which; null when none does. */
  expiry: NoteExpiry | null;
  history: NoteEvent[];
}

export interface NoteExpiry extends CollectionRef {
  trash_at: number;
  retention_days: number;
}

export function noteSummaryView(note: Note, transcriptionJob: Job | null): NoteSummaryView {
  return {
    note_id: note.note_id,
    title: note.title,
    state: note.state,
    created_at: note.created_at,
    updated_at: note.updated_at,
    trashed_at: note.trashed_at,
    transcription_status: transcriptionJob?.status ?? 'none',
    deletes_at: note.deletes_at ?? null,
  };
}

export function noteView(
  note: Note,
  transcriptionJob: Job | null,
  transcription: Transcription | null,
  insights: Insights | null,
  /** The collections the note is filed in, by name. */
  filed: readonly Collection[],
): NoteView {
  return {
    ...noteSummaryView(note, transcriptionJob),
    audio: note.audio,
    speaker_names: note.speaker_names ?? {},
    voice_matches: note.voice_matches ?? {},
    collections: filed.map(collectionRef),
    transcription_job: transcriptionJob ? jobStatusView(transcriptionJob, note.title) : null,
    transcription: transcription && transcriptionView(transcription, note.speaker_names, { words: false }),
    insights: insights && shownInsights(insights, note.speaker_names, transcriptionJob, filed),
    protected: note.protected ?? false,
    expiry: expiryOf(note, filed),
    history: note.history ?? [],
  };
}

function expiryOf(note: Note, filed: readonly Collection[]): NoteExpiry | null {
  const ends = retentionEnds(note, filed);
  if (!ends) return null;
  const { collection } = ends;
  return { ...collectionRef(collection), retention_days: collection.retention_days ?? 0, trash_at: ends.at };
}

/**
 * The entity tag of a note's representation (getNote, updateNote): a parted tag (entity-tags.ts)
 * whose first part covers what updateNote changes (title, state, speaker names, protection) and whose second
 * covers the whole view. updateNote's If-Match compares the first part, so a note read before its
 * transcript was corrected, or before a job moved on, can still be renamed; If-None-Match compares
 * the whole tag, so a read never gets 304 for a view that changed.
 */
export function noteEntityTag(view: NoteView): string {
  const { note_id, title, state, trashed_at, speaker_names } = view;
  // `protected` joined the first part later: absent while false, so earlier tags stay valid.
  const changeable = {
    note_id,
    title,
    state,
    trashed_at,
    speaker_names,
    ...(view.protected ? { protected: true } : {}),
  };
  return partedEntityTag(changeable, view);
}
