/** One line of a script, spoken by one voice. */
export interface SynthesisLine {
  voice: string;
  text: string;
}

/**
 * Text to speech for the podcast artifact. Implementations: flite + ffmpeg locally, Amazon Polly on
 * AWS. Errors: `ProviderThrottledError` when rate-limited, `GenerationFailedError` otherwise.
 */
export interface SpeechSynthesizer {
  /** e.g. `flite`, `polly`. */
  readonly name: string;
  /**
   * Two distinct voices for the two podcast hosts in this language (a code such as `en` or `en-GB`),
   * or null when the synthesizer has none.
   */
  hostVoices(language: string): [string, string] | null;
  /**
   * Renders the lines in order, with a short pause between them, as one MP3 file at `outputPath`.
   * Aborting `signal` stops the work promptly (child processes killed, requests cancelled, temporary
   * files and a partial output removed) and rejects with an error named `AbortError`.
   */
  synthesize(
    lines: SynthesisLine[],
    outputPath: string,
    signal?: AbortSignal,
  ): Promise<{ duration_ms: number }>;
}
