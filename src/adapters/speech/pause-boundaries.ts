import { open } from 'node:fs/promises';
import { type Chunk, DEFAULT_OVERLAP_MS } from './chunking.ts';
import { PCM_BYTES_PER_MS } from './ffmpeg.ts';

/** How far from a planned boundary a pause is looked for, each way. */
const SEARCH_MS = 5_000;
/** Energy is measured per frame of this length; a pause is the quietest run of `PAUSE_FRAMES`. */
const FRAME_MS = 20;
const PAUSE_FRAMES = 15;

/**
 * Moves each boundary between `chunks` (planned by `planChunks` on the decoded recording at
 * `pcmPath`) to the quietest 300 ms within 5 s of it: a boundary in a pause cuts no word, and a
 * recogniser that hears a window from its start (Whisper) begins at the start of a phrase. The overlap
 * is kept on each side as before, so a word the pause search misjudges is still heard whole by one
 * chunk and kept once (by its midpoint).
 */
export async function boundariesAtPauses(
  pcmPath: string,
  chunks: readonly Chunk[],
  overlapMs = DEFAULT_OVERLAP_MS,
): Promise<Chunk[]> {
  if (chunks.length < 2) return [...chunks];
  const totalMs = chunks.at(-1)?.endMs ?? 0;
  const file = await open(pcmPath);
  try {
    const boundaries: number[] = [];
    for (const chunk of chunks.slice(1)) {
      const lower = Math.max(chunk.keepFromMs - SEARCH_MS, boundaries.at(-1) ?? 0);
      boundaries.push(
        await quietestPoint(file, lower, Math.min(chunk.keepFromMs + SEARCH_MS, totalMs), chunk.keepFromMs),
      );
    }
    return chunks.map((chunk, index) => {
      const keepFromMs = index === 0 ? 0 : (boundaries[index - 1] ?? chunk.keepFromMs);
      const keepToMs =
        index === chunks.length - 1 ? Number.POSITIVE_INFINITY : (boundaries[index] ?? chunk.keepToMs);
      return {
        index,
        keepFromMs,
        keepToMs,
        startMs: index === 0 ? 0 : Math.max(0, keepFromMs - overlapMs),
        endMs: index === chunks.length - 1 ? totalMs : Math.min(totalMs, keepToMs + overlapMs),
      };
    });
  } finally {
    await file.close();
  }
}

/** The middle of the quietest run of frames in `fromMs..toMs`; `plannedMs` when there is no audio there. */
async function quietestPoint(
  file: Awaited<ReturnType<typeof open>>,
  fromMs: number,
  toMs: number,
  plannedMs: number,
): Promise<number> {
  const frameBytes = FRAME_MS * PCM_BYTES_PER_MS;
  const start = Math.floor(fromMs / FRAME_MS) * frameBytes;
  const buffer = Buffer.alloc(Math.max(0, Math.floor((toMs - fromMs) / FRAME_MS)) * frameBytes);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
  const frames = Math.floor(bytesRead / frameBytes);
  if (frames < PAUSE_FRAMES) return plannedMs;
  const energy = Array.from({ length: frames }, (_, frame) => {
    let sum = 0;
    for (let at = frame * frameBytes; at < (frame + 1) * frameBytes; at += 2) {
      const sample = buffer.readInt16LE(at);
      sum += sample * sample;
    }
    return sum;
  });
  let run = energy.slice(0, PAUSE_FRAMES).reduce((sum, value) => sum + value, 0);
  let best = { run, first: 0 };
  for (let first = 1; first + PAUSE_FRAMES <= frames; first++) {
    run += (energy[first + PAUSE_FRAMES - 1] ?? 0) - (energy[first - 1] ?? 0);
    // Ties go to the run nearest the planned boundary, so chunks stay near equal length in silence.
    const nearer =
      Math.abs(start / PCM_BYTES_PER_MS + (first + PAUSE_FRAMES / 2) * FRAME_MS - plannedMs) <
      Math.abs(start / PCM_BYTES_PER_MS + (best.first + PAUSE_FRAMES / 2) * FRAME_MS - plannedMs);
    if (run < best.run || (run === best.run && nearer)) best = { run, first };
  }
  return Math.round(start / PCM_BYTES_PER_MS + (best.first + PAUSE_FRAMES / 2) * FRAME_MS);
}
