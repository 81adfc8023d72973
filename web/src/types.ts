/** The API's shapes as the app uses them (openapi.yaml is the contract; only what is read is typed). */

export type JobState = 'queued' | 'processing' | 'completed' | 'failed';

export interface Job {
  note_id: string;
  kind: string;
  status: JobState;
  stage: string;
  progress?: number;
  /** Stage `waiting`: what the recording waits for (a self-hosted service's recognisers). */
  waiting?: JobWait;
  detail?: string;
  updated_at: number;
}

export interface JobWait {
  recordings_ahead: number;
  estimated_start_at?: number;
}

export interface CollectionRef {
  collection_id: string;
  name: string;
}

export interface Collection extends CollectionRef {
  note_count?: number;
  /** For its notes' Insights and artifacts; null (older services: absent) when it has none. */
  instructions?: string | null;
  /**
   * How many days its notes are kept before they move to the trash (1 to 3650); null (older
   * services: absent) when it keeps them until a person trashes them.
   */
  retention_days?: number | null;
  created_at: number;
}

/** The bounds of a collection's retention period, in days (openapi.yaml RetentionDays). */
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 3650;

/** The limit of a collection's instructions (openapi.yaml CollectionInstructions). */
export const INSTRUCTIONS_LIMIT = 1000;

/** Which collections' instructions a result was made with, and whether its engine followed them. */
export interface InstructionsUsed {
  followed: boolean;
  collections: CollectionRef[];
}

/** What the service says of a generated result (Insights, an artifact) beside its content. */
export interface Freshness {
  /** Made before a correction of the transcript or a change of the collections' instructions. */
  outdated?: boolean;
  /** Why (older services: absent, meaning the transcript). */
  outdated_reasons?: Array<'transcript' | 'instructions'>;
  collection_instructions?: InstructionsUsed | null;
}

export interface NoteSummary {
  note_id: string;
  title: string;
  state: 'active' | 'trashed';
  created_at: number;
  updated_at: number;
  trashed_at: number | null;
  /** When a note the retention moved to the trash is deleted for good; null otherwise (older services: absent). */
  deletes_at?: number | null;
  transcription_status: JobState | null;
}

/** A word with its time and how sure the recogniser was (0 to 1; null when the engine says nothing). */
export interface TimedWord {
  text: string;
  start_ms: number;
  end_ms: number;
  confidence?: number | null;
}

export interface Segment {
  start_ms: number;
  end_ms: number;
  /** The name the user gave the speaker (updateNote speaker_names), else its label. */
  speaker: string;
  /** The speaker's stable label (`Speaker 2`): what renames and set_speaker name. Older services omit it. */
  speaker_label?: string;
  text: string;
  has_overlap: boolean;
  confidence?: number | null;
  /** One per space-separated word of `text`, when the engine gave word timings. */
  words?: TimedWord[];
}

/** Why a completed transcript has nothing (no speech) or should not be trusted as it is. */
export interface TranscriptNotice {
  code: string;
  detail: string;
}

export interface Transcription {
  full_text: string;
  conversation_segments: Segment[];
  duration_ms: number;
  language: string;
  engine: string;
  revision?: number;
  confidence?: number | null;
  notice?: TranscriptNotice | null;
  /** What told the speakers apart (`voice-model:<name>`, `voice-statistics`); absent for engines that label them. */
  speakers_by?: string;
}

export interface CitedText {
  text: string;
  citations: number[];
}

export interface Insights extends Freshness {
  engine: string;
  generated_at: number;
  summary: CitedText;
  key_points: CitedText[];
  topics: Array<{ label: string; citations: number[] }>;
  action_items: Array<CitedText & { owner?: string | null; due_date?: string | null }>;
  decisions: CitedText[];
  open_questions: CitedText[];
  chapters: Array<{ title: string; start_ms: number }>;
  /** Talk time per speaker, by the names the user gave them. */
  speakers?: Array<{ speaker: string; talk_time_ms: number; share: number }>;
}

export interface Note extends NoteSummary {
  audio: { content_type: string; size_bytes: number; uploaded_at: number | null } | null;
  speaker_names: Record<string, string>;
  /** Speakers named after a voice the account keeps (voice profiles), by label. */
  voice_matches: Record<string, VoiceMatch>;
  collections: CollectionRef[];
  transcription_job: Job | null;
  transcription: Transcription | null;
  insights: Insights | null;
  /** Kept by the person: no collection's retention period moves it to the trash (older services: absent). */
  protected?: boolean;
  /** When a collection's retention period moves the note to the trash; null when none does. */
  expiry?: NoteExpiry | null;
  /** Trashing, restoring and keeping, oldest first (the last 50). */
  history?: NoteEvent[];
}

/** Which collection's retention period moves the note to the trash, and when (a past time: within the hour). */
export interface NoteExpiry extends CollectionRef {
  trash_at: number;
  retention_days: number;
}

/** One entry of a note's history. */
export interface NoteEvent {
  at: number;
  event: 'trashed' | 'restored' | 'protected' | 'unprotected';
  /** A person (the account's owner, through any app) or a collection's retention period. */
  by: 'person' | 'retention';
  /** Whose retention period ran out (`by: retention`). */
  collection?: CollectionRef;
  /** When the note is deleted for good (a move to the trash by the retention). */
  deletes_at?: number;
}

export interface VoiceMatch {
  profile_id: string;
  name: string;
  similarity: number;
  status: 'suggested' | 'confirmed';
}

export interface VoiceProfile {
  profile_id: string;
  name: string;
  voices_by: string;
  speech_seconds: number;
  taught: number;
  created_at: number;
  updated_at: number;
}

export interface VoiceProfiles {
  enabled: boolean;
  profiles: VoiceProfile[];
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface AskCitation {
  note_id: string;
  note_title: string;
  start_ms: number;
  end_ms: number;
  quote: string;
  /** The sentence the answer rests on, and when it is said: where the citation opens the note. */
  sentence: string;
  sentence_start_ms: number;
}

export interface AskAnswer {
  answer: string;
  note_ids: string[];
  citations: AskCitation[];
}
