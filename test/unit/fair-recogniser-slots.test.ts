import { afterEach, describe, expect, it, vi } from 'vitest';
import { CpuSlots, MAX_OVERTAKES, type RecordingShare } from '../../src/adapters/speech/cpu-slots.ts';
import { ProgressReporter } from '../../src/adapters/speech/progress-reporter.ts';
import { SlotRates, slotStartEstimate } from '../../src/adapters/speech/slot-wait-estimate.ts';
import type { RecognitionProgress, RecognitionWait } from '../../src/ports/speech-to-text.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A chunk that holds its slot until `finish()`; `started` says whether it got one. */
function chunk(share: RecordingShare, audioMs: number) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const state = { started: false, finish, ran: undefined as Promise<void> | undefined };
  state.ran = share.run(audioMs, async () => {
    state.started = true;
    await done;
  });
  return state;
}

/** Lets the promise callbacks queued by a release run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('recogniser slots are shared fairly between recordings', () => {
  it('gives a short recording the first slot a long one frees, before the long one’s next chunk', async () => {
    const slots = new CpuSlots(2);
    const long = slots.recording({ audioMs: 600_000, engine: 'e' });
    const short = slots.recording({ audioMs: 20_000, engine: 'e' });
    const longChunks = [0, 1, 2, 3].map(() => chunk(long, 60_000));
    await settle();
    const shortChunk = chunk(short, 20_000);
    await settle();
    expect(longChunks.map((c) => c.started)).toEqual([true, true, false, false]);
    longChunks[0]?.finish();
    await settle();
    expect(shortChunk.started).toBe(true);
    expect(longChunks[2]?.started).toBe(false);
    shortChunk.finish();
    await settle();
    expect(longChunks[2]?.started).toBe(true);
  });

  it('serves the recording with less audio left to start first among those holding as many slots', async () => {
    const slots = new CpuSlots(1);
    const blocker = chunk(slots.recording({ audioMs: 1, engine: 'e' }), 1);
    await settle();
    const order: string[] = [];
    const long = slots.recording({ audioMs: 300_000, engine: 'e' });
    const medium = slots.recording({ audioMs: 120_000, engine: 'e' });
    const runs = [
      ...[1, 2, 3].map((n) => long.run(100_000, async () => void order.push(`long ${n}`))),
      ...[1, 2].map((n) => medium.run(60_000, async () => void order.push(`medium ${n}`))),
    ];
    blocker.finish();
    await Promise.all(runs);
    expect(order).toEqual(['medium 1', 'medium 2', 'long 1', 'long 2', 'long 3']);
  });

  it(`never lets a waiting chunk be overtaken more than ${MAX_OVERTAKES} times by later, shorter recordings`, async () => {
    const slots = new CpuSlots(1);
    const long = slots.recording({ audioMs: 3_600_000, engine: 'e' });
    const blocker = chunk(slots.recording({ audioMs: 1, engine: 'e' }), 1);
    await settle();
    const longChunk = chunk(long, 60_000);
    const order: string[] = [];
    let holding = blocker;
    // Short recordings keep arriving while the slot is held: each would go first by its size.
    for (let n = 1; n <= MAX_OVERTAKES + 2; n++) {
      const short = chunk(slots.recording({ audioMs: 1_000, engine: 'e' }), 1_000);
      void short.ran?.then(() => order.push(`short ${n}`));
      holding.finish();
      await settle();
      if (longChunk.started) break;
      holding = short;
    }
    expect(longChunk.started).toBe(true);
    expect(order.length).toBeLessThanOrEqual(MAX_OVERTAKES);
  });

  it('tells a recording that waits how many recordings are ahead, and that it runs once it has a slot', async () => {
    const slots = new CpuSlots(1);
    const told: Array<RecognitionWait | null> = [];
    const long = slots.recording({ audioMs: 120_000, engine: 'e' });
    const short = slots.recording({ audioMs: 10_000, engine: 'e', onWait: (wait) => told.push(wait) });
    const longChunk = chunk(long, 60_000);
    await settle();
    const shortChunk = chunk(short, 10_000);
    await settle();
    // No chunk of this engine has finished yet: no speed, so no estimate rather than an invented one.
    expect(told).toEqual([{ recordingsAhead: 1 }]);
    longChunk.finish();
    await settle();
    expect(told.at(-1)).toBeNull();
    shortChunk.finish();
    await shortChunk.ran;
  });

  it('estimates when a waiting recording starts from the speed of the chunks that finished', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const slots = new CpuSlots(1);
    const told: Array<RecognitionWait | null> = [];
    const first = slots.recording({ audioMs: 10_000, engine: 'e' });
    const measured = chunk(first, 10_000);
    await settle();
    vi.setSystemTime(1_005_000); // 10 s of audio in 5 s: half a second per second
    measured.finish();
    await measured.ran;
    const long = chunk(slots.recording({ audioMs: 60_000, engine: 'e' }), 60_000);
    await settle();
    vi.setSystemTime(1_010_000);
    const waiting = chunk(
      slots.recording({ audioMs: 5_000, engine: 'e', onWait: (wait) => told.push(wait) }),
      5_000,
    );
    await settle();
    // The long chunk started at 1,005,000 and should take 30 s.
    expect(told).toEqual([{ recordingsAhead: 1, startsAt: 1_035_000 }]);
    long.finish();
    await settle();
    waiting.finish();
    await waiting.ran;
  });

  it('forgets a waiter that gives up, and the recordings behind it move up', async () => {
    const slots = new CpuSlots(1);
    const told: Array<RecognitionWait | null> = [];
    const held = chunk(slots.recording({ audioMs: 60_000, engine: 'e' }), 60_000);
    const controller = new AbortController();
    const quitting = slots.recording({ audioMs: 30_000, engine: 'e' });
    const quit = quitting.run(30_000, async () => {}, controller.signal);
    const patient = chunk(
      slots.recording({ audioMs: 40_000, engine: 'e', onWait: (wait) => told.push(wait) }),
      40_000,
    );
    await settle();
    expect(told.at(-1)).toEqual({ recordingsAhead: 2 });
    controller.abort();
    await expect(quit).rejects.toMatchObject({ name: 'AbortError' });
    expect(told.at(-1)).toEqual({ recordingsAhead: 1 });
    held.finish();
    await settle();
    expect(patient.started).toBe(true);
    patient.finish();
    await patient.ran;
  });
});

describe('the start of a waiting chunk is estimated by playing the queue forward', () => {
  const rates = new SlotRates();
  rates.record({ share: null, engine: 'e', audioMs: 1_000, startedAt: 0 }, 500);

  it('gives the first slot to free when nothing waits ahead', () => {
    const held = [
      { share: null, engine: 'e', audioMs: 60_000, startedAt: 0 },
      { share: null, engine: 'e', audioMs: 60_000, startedAt: 10_000 },
    ];
    expect(slotStartEstimate(held, [], 2, rates, 5_000)).toBe(30_000);
  });

  it('lets each chunk ahead take the slot that frees first, for its own length', () => {
    const held = [{ share: null, engine: 'e', audioMs: 60_000, startedAt: 0 }];
    // Slot frees at 30 s; the chunk ahead takes it for 10 s.
    expect(slotStartEstimate(held, [{ engine: 'e', audioMs: 20_000 }], 1, rates, 0)).toBe(40_000);
  });

  it('says now when a chunk has run past its expected end, and nothing for an engine never measured', () => {
    const late = [{ share: null, engine: 'e', audioMs: 2_000, startedAt: 0 }];
    expect(slotStartEstimate(late, [], 1, rates, 9_000)).toBe(9_000);
    const unknown = [{ share: null, engine: 'other', audioMs: 2_000, startedAt: 0 }];
    expect(slotStartEstimate(unknown, [], 1, rates, 0)).toBeUndefined();
  });
});

describe('progress reports keep their order', () => {
  it('sends every post, the newest of those not yet sent replacing the older ones, after the reports before', async () => {
    const sent: RecognitionProgress[] = [];
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const reporter = new ProgressReporter(async (progress) => {
      sent.push(progress);
      if (progress.stage === 'decoding') await blocked;
    }, 0);
    const decoding = reporter.report({ stage: 'decoding' });
    reporter.post({ stage: 'waiting', waiting: { recordingsAhead: 2 } });
    reporter.post({ stage: 'waiting', waiting: { recordingsAhead: 1 } });
    reporter.tick({ stage: 'recognizing', fraction: 0.1 }); // dropped: a report is on its way
    unblock();
    await decoding;
    await reporter.report({ stage: 'recognizing', fraction: 1 });
    expect(sent).toEqual([
      { stage: 'decoding' },
      { stage: 'waiting', waiting: { recordingsAhead: 1 } },
      { stage: 'recognizing', fraction: 1 },
    ]);
  });
});
