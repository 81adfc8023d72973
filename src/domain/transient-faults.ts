import { ProviderThrottledError } from '../ports/generation-errors.ts';
import { storageFaultOf } from '../ports/storage-faults.ts';

/**
 * Faults that pass with time, so the work is retried rather than its job failed: a throttled
 * provider, and storage that is full or cannot be written (a podcast's audio, the scratch files),
 * which works again once space is freed.
 */
export function passesWithTime(error: unknown): boolean {
  return error instanceof ProviderThrottledError || storageFaultOf(error) !== null;
}
