/** Asks a worker to transcribe the stored audio of a note (the upload event is the other trigger). */
export interface TranscriptionRequest {
  type: 'transcribe';
  account_id: string;
  note_id: string;
}

/** Asks the generation worker to produce Insights (later: artifacts) for a transcribed note. */
export interface GenerationRequest {
  type: 'insights';
  account_id: string;
  note_id: string;
}

export interface WorkQueue {
  requestTranscription(request: TranscriptionRequest): Promise<void>;
  requestGeneration(request: GenerationRequest): Promise<void>;
}
