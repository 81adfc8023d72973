/** A recogniser slot in use: whose, by which engine, for how much audio, since when (epoch ms). */
export interface HeldSlot<Share = unknown> {
  share: Share;
  engine: string;
  audioMs: number;
  startedAt: number;
}

/** A chunk waiting for a slot. */
export interface QueuedChunk {
  engine: string;
  audioMs: number;
}

/** How much of the newest chunk's speed goes into an engine's running figure. */
const WEIGHT_OF_NEWEST = 0.3;

/**
 * Each engine's speed on this machine, wall ms per ms of audio, from the chunks that ran to their end:
 * a running average, so it follows the machine's load without jumping at every chunk.
 */
export class SlotRates {
  private readonly byEngine = new Map<string, number>();

  record(slot: HeldSlot, now: number): void {
    if (!(slot.audioMs > 0) || !slot.engine) return;
    const rate = (now - slot.startedAt) / slot.audioMs;
    const before = this.byEngine.get(slot.engine);
    this.byEngine.set(slot.engine, before === undefined ? rate : before + WEIGHT_OF_NEWEST * (rate - before));
  }

  rate(engine: string): number | undefined {
    return this.byEngine.get(engine);
  }
}

/**
 * When a chunk that waits behind `queued` should get a slot (epoch ms): each held slot frees when its
 * chunk should end at its engine's speed (now, when that time has passed), and each chunk ahead takes
 * the slot that frees first for its own length. Undefined while any engine involved has no measured
 * speed yet: no estimate is better than an invented one.
 */
export function slotStartEstimate(
  held: readonly HeldSlot[],
  queued: readonly QueuedChunk[],
  size: number,
  rates: SlotRates,
  now: number,
): number | undefined {
  const frees: number[] = Array.from({ length: Math.max(0, size - held.length) }, () => now);
  for (const slot of held) {
    const rate = rates.rate(slot.engine);
    if (rate === undefined) return undefined;
    frees.push(Math.max(now, slot.startedAt + slot.audioMs * rate));
  }
  for (const chunk of queued) {
    const rate = rates.rate(chunk.engine);
    if (rate === undefined) return undefined;
    frees.sort((a, b) => a - b);
    frees[0] = (frees[0] ?? now) + chunk.audioMs * rate;
  }
  return Math.round(Math.min(...frees));
}
