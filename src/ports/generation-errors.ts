/**
 * Errors every text or speech provider adapter reports in the same terms, whatever the provider.
 * `ProviderThrottledError`: the provider rate-limits (429 for Ask; a generation job is retried by its
 * queue). `GenerationFailedError`: no valid output could be produced (502 for Ask; the job fails).
 */
export class ProviderThrottledError extends Error {
  override readonly name = 'ProviderThrottledError';
}

export class GenerationFailedError extends Error {
  override readonly name = 'GenerationFailedError';
}
