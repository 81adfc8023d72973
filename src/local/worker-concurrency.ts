import { availableParallelism, freemem, totalmem } from 'node:os';
import { constrainedMemory } from 'node:process';

/**
 * What one local transcription holds at its peak, measured (`npm run bench -- throughput`): a
 * pocketsphinx process (~110 MiB), its decoding, and the diarizer's share of the runtime (~50 MiB for
 * 30 minutes of audio), rounded up.
 */
export const MEMORY_PER_TRANSCRIPTION_BYTES = 256 * 2 ** 20;

/**
 * Transcriptions per core. Recognisers never outnumber the cores whatever this is (`recognizerSlots`):
 * a second job per core does its steps around recognition (fetching, decoding, diarizing, saving)
 * while another's recogniser holds the core, which otherwise idled then. Measured with four 60 s
 * recordings at once on 2 cores: the cores were busy 70 % of the time with one job per core
 * (docs/benchmarks.md, "Throughput").
 */
export const TRANSCRIPTIONS_PER_CORE = 2;

/**
 * Transcriptions the local runtime runs at once unless NOTES_TRANSCRIPTION_CONCURRENCY says: two per
 * core, fewer when half of the memory available now (or the cgroup's limit) cannot hold them. Never
 * 0: a small machine still transcribes, one at a time.
 */
export function defaultTranscriptionConcurrency(
  cores = availableParallelism(),
  memoryBytes = availableMemoryBytes(),
): number {
  const byMemory = Math.floor(memoryBytes / 2 / MEMORY_PER_TRANSCRIPTION_BYTES);
  return Math.max(1, Math.min(cores * TRANSCRIPTIONS_PER_CORE, byMemory));
}

function availableMemoryBytes(): number {
  // 0 or undefined when no limit is set (and on platforms without cgroups).
  const limit = constrainedMemory?.() ?? 0;
  const free = freemem();
  return limit > 0 && limit < totalmem() ? Math.min(limit, free) : free;
}

/** Reads NOTES_TRANSCRIPTION_CONCURRENCY: a whole number from 1 to 64, or unset for the default. */
export function transcriptionConcurrencySetting(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return defaultTranscriptionConcurrency();
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 64) {
    throw new RangeError(
      `NOTES_TRANSCRIPTION_CONCURRENCY must be a whole number from 1 to 64 (transcriptions at once), got "${value}"`,
    );
  }
  return number;
}
