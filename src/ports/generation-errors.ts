/**
 * Errors every text or speech provider adapter reports in the same terms, whatever the provider.
 * `ProviderThrottledError`: the provider rate-limits (429 for Ask; a generation job is retried by its
 * queue). `GenerationFailedError`: no valid output could be produced (502 for Ask; the job fails).
 * Its two refinements say why, so the operator or the client knows what to do:
 * `ProviderMisconfiguredError` (503 for Ask; the job fails with the detail): the model is denied,
 * unknown or retired, which only the operator can fix; `ProviderTimedOutError` (504 for Ask): no
 * answer within the time the caller can wait.
 */
export class ProviderThrottledError extends Error {
  override readonly name: string = 'ProviderThrottledError';
}

export class GenerationFailedError extends Error {
  override readonly name: string = 'GenerationFailedError';
}

/** The message is written for the operator: what is wrong and what to change. It holds no request content. */
export class ProviderMisconfiguredError extends GenerationFailedError {
  override readonly name: string = 'ProviderMisconfiguredError';
}

export class ProviderTimedOutError extends GenerationFailedError {
  override readonly name: string = 'ProviderTimedOutError';
  constructor(
    message: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
