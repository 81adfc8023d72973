import type { ArtifactKind } from '../domain/artifacts.ts';

/** Asks a worker to transcribe the stored audio of a note (the upload event is the other trigger). */
export interface TranscriptionRequest {
  type: 'transcribe';
  account_id: string;
  note_id: string;
}

/** Asks the generation worker to produce Insights or an artifact for a transcribed note. */
export type GenerationRequest =
  | { type: 'insights'; account_id: string; note_id: string }
  | {
      type: 'artifact';
      account_id: string;
      note_id: string;
      kind: ArtifactKind;
      /** Resolved language code (never `auto`). */
      language: string;
    };

export interface WorkQueue {
  requestTranscription(request: TranscriptionRequest): Promise<void>;
  requestGeneration(request: GenerationRequest): Promise<void>;
}
