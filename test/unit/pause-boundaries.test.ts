import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChunks } from '../../src/adapters/speech/chunking.ts';
import { boundariesAtPauses } from '../../src/adapters/speech/pause-boundaries.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notes-pauses-'));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** 16 kHz s16le: a loud tone whose loudness swings like speech, silent in the given spans (ms). */
async function pcm(name: string, durationMs: number, silences: Array<[number, number]>): Promise<string> {
  const samples = (durationMs * 16_000) / 1000;
  const buffer = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const ms = i / 16;
    const silent = silences.some(([from, to]) => ms >= from && ms < to);
    const loudness = 0.5 + 0.4 * Math.sin((2 * Math.PI * 4 * i) / 16_000);
    buffer.writeInt16LE(
      silent ? 0 : Math.round(12_000 * loudness * Math.sin((2 * Math.PI * 220 * i) / 16_000)),
      i * 2,
    );
  }
  const path = join(dir, `${name}.pcm`);
  await writeFile(path, buffer);
  return path;
}

describe('chunk boundaries moved to pauses', () => {
  it('moves a boundary into the pause within 5 s of it, keeping the overlap on each side', async () => {
    const path = await pcm('pause', 60_000, [[32_800, 33_500]]);
    const planned = planChunks(60_000, { chunkMs: 30_000, overlapMs: 2_000 });
    expect(planned.map((chunk) => chunk.keepFromMs)).toEqual([0, 30_000]);
    const [first, second] = await boundariesAtPauses(path, planned, 2_000);
    expect(second?.keepFromMs).toBeGreaterThanOrEqual(32_800);
    expect(second?.keepFromMs).toBeLessThanOrEqual(33_500);
    expect(first?.keepToMs).toBe(second?.keepFromMs);
    expect(first?.endMs).toBe((first?.keepToMs ?? 0) + 2_000);
    expect(second?.startMs).toBe((second?.keepFromMs ?? 0) - 2_000);
    expect(first?.startMs).toBe(0);
    expect(second?.endMs).toBe(60_000);
    expect(second?.keepToMs).toBe(Number.POSITIVE_INFINITY);
  });

  it('leaves a boundary with no pause near it within 5 s of where it was planned, the kept spans still tiling the recording', async () => {
    const path = await pcm('no-pause', 90_000, [[10_000, 11_000]]);
    const planned = planChunks(90_000, { chunkMs: 30_000, overlapMs: 2_000 });
    const moved = await boundariesAtPauses(path, planned, 2_000);
    expect(moved).toHaveLength(3);
    moved.slice(1).forEach((chunk, i) => {
      expect(Math.abs(chunk.keepFromMs - (planned[i + 1]?.keepFromMs ?? 0))).toBeLessThanOrEqual(5_000);
      expect(chunk.keepFromMs).toBe(moved[i]?.keepToMs);
    });
  });

  it('keeps a recording of one chunk as it is', async () => {
    const path = await pcm('short', 20_000, []);
    const planned = planChunks(20_000, { chunkMs: 30_000 });
    expect(await boundariesAtPauses(path, planned)).toEqual(planned);
  });
});
