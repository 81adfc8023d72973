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
}
