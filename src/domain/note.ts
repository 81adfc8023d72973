import type { CollectionRef } from './collection.ts';
import type { VoiceMatch } from './voice-profile.ts';

/** A note: one recording and everything generated from it, owned by one account. */
export type NoteState = 'active' | 'trashed';

export interface AudioInfo {
  content_type: string;
  size_bytes: number;
  /** When the upload completed (epoch ms); null while awaiting upload or after unreadable audio was discarded. */
  uploaded_at: number | null;
}

export interface Note {
  account_id: string;
  note_id: string;
  title: string;
  state: NoteState;
  created_at: number;
  updated_at: number;
  trashed_at: number | null;
  audio: AudioInfo | null;
  /** How many people speak, when the submitter said so: a hint for diarization. */
  speakers_expected?: number;
  /** Names the user gave the transcript's speaker labels (`Speaker 1` -> `Alice`); absent when none. */
  speaker_names?: Record<string, string>;
  /** Speakers named after a known voice (voice profiles), by label; absent when none. */
  voice_matches?: Record<string, VoiceMatch>;
  /** Kept by the person: no collection's retention period moves it to the trash. */
  protected?: boolean;
  /** When the note last came back from the trash: its retention period starts again there. */
  restored_at?: number;
  /** When a note the retention moved to the trash is deleted for good; absent otherwise. */
  deletes_at?: number;
  /** What happened to the note (trash, restore, protection), oldest first, the last NOTE_HISTORY_KEPT. */
  history?: NoteEvent[];
  /**
   * Counts every write of the note (absent on notes stored before it existed: read as 0). Writes are
   * conditional on it, so two writers that read the same version cannot both succeed.
   */
  version?: number;
}

export interface NoteChanges {
  title?: string | undefined;
  state?: NoteState | undefined;
  /** Names to set; `null` removes a name and shows the label again. */
  speaker_names?: Record<string, string | null> | undefined;
  /** Matches to set; `null` removes one. */
  voice_matches?: Record<string, VoiceMatch | null> | undefined;
  protected?: boolean | undefined;
  /**
   * Set only by the retention (with `state: 'trashed'`): whose period ran out and when the note goes
   * for good. Without it a change of state is the person's.
   */
  retention?: { collection: CollectionRef; deletes_at: number } | undefined;
}

/** One entry of a note's history. */
export interface NoteEvent {
  at: number;
  event: 'trashed' | 'restored' | 'protected' | 'unprotected';
  /** A person (through any interface) or a collection's retention period. */
  by: 'person' | 'retention';
  /** The collection whose retention period ran out (`by: retention`). */
  collection?: CollectionRef;
  /** When the note will be deleted for good (trashed by the retention). */
  deletes_at?: number;
}

/** A note's history keeps its last this many events (it only grows by trashing, restoring, protecting). */
export const NOTE_HISTORY_KEPT = 50;
