/** A stretch of one note's transcript that retrieval found relevant to the question. */
export interface AskPassage {
  note_id: string;
  note_title: string;
  start_ms: number;
  end_ms: number;
  text: string;
  /**
   * The same text by who said it, in order: speakers by the names the user gave them, else labels;
   * with when each turn (and, given word timings, each of its words) starts, where known.
   */
  turns: { speaker: string; text: string; start_ms?: number; word_starts?: number[] }[];
}

export interface AnswerRequest {
  question: string;
  /** Best first; the only material an answer may use. */
  passages: AskPassage[];
}

/** An engine's answer: citations point at passages by note and `start_ms`. */
export interface AnswerDraft {
  answer: string;
  citations: { note_id: string; start_ms: number }[];
}

/**
 * Answers a question from retrieved passages only. Implementations: local extractive (quotes the best
 * passages), Amazon Bedrock (Converse), OpenAI-compatible chat completions. When the passages do not
 * answer the question, the answer says so and cites nothing. Errors: `ProviderThrottledError` (429),
 * `GenerationFailedError` (502), from src/ports/generation-errors.ts.
 */
export interface AnswerEngine {
  readonly name: string;
  answer(request: AnswerRequest): Promise<AnswerDraft>;
}
