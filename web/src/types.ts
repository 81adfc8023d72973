/** The API's shapes as the app uses them (openapi.yaml is the contract; only what is read is typed). */

export type JobState = 'queued' | 'processing' | 'completed' | 'failed';

export interface Job {
  note_id: string;
  kind: string;
  status: JobState;
  stage: string;
  progress?: number;
  detail?: string;
  updated_at: number;
}

export interface CollectionRef {
  collection_id: string;
  name: string;
}

export interface Collection extends CollectionRef {
  note_count?: number;
  created_at: number;
}

export interface NoteSummary {
  note_id: string;
  title: string;
  state: 'active' | 'trashed';
  created_at: number;
  updated_at: number;
  trashed_at: number | null;
  transcription_status: JobState | null;
}

export interface Segment {
  start_ms: number;
  end_ms: number;
  speaker: string;
  text: string;
  has_overlap: boolean;
}

export interface Transcription {
  full_text: string;
  conversation_segments: Segment[];
  duration_ms: number;
  language: string;
  engine: string;
  revision?: number;
}

export interface CitedText {
  text: string;
  citations: number[];
}

export interface Insights {
  engine: string;
  generated_at: number;
  summary: CitedText;
  key_points: CitedText[];
  topics: Array<{ label: string; citations: number[] }>;
  action_items: Array<CitedText & { owner?: string | null }>;
  decisions: CitedText[];
  open_questions: CitedText[];
  chapters: Array<{ title: string; start_ms: number }>;
}

export interface Note extends NoteSummary {
  audio: { content_type: string; size_bytes: number; uploaded_at: number | null } | null;
  speaker_names: Record<string, string>;
  collections: CollectionRef[];
  transcription_job: Job | null;
  transcription: Transcription | null;
  insights: Insights | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface AskCitation {
  note_id: string;
  start_ms: number;
  end_ms: number;
  quote: string;
}

export interface AskAnswer {
  answer: string;
  note_ids: string[];
  citations: AskCitation[];
}
