/**
 * Turn-level clean-up. Window labels flicker at speaker changes and on odd stretches of one voice;
 * real turns shorter than a word or two are rare, so short runs are relabelled to a neighbour and
 * same-speaker runs separated by a short pause are joined (a pause inside a turn is not a new turn).
 */

export interface LabelledRun {
  start_ms: number;
  end_ms: number;
  label: number;
}

export interface SmoothOptions {
  /** Runs shorter than this take a neighbour's label. */
  minTurnMs: number;
  /** Same-label runs at most this far apart are joined into one turn. */
  joinGapMs: number;
}

export const DEFAULT_SMOOTH_OPTIONS: SmoothOptions = { minTurnMs: 600, joinGapMs: 1000 };

export function smoothTurns(
  runs: readonly LabelledRun[],
  options: SmoothOptions = DEFAULT_SMOOTH_OPTIONS,
): LabelledRun[] {
  let turns = join(
    runs.map((run) => ({ ...run })),
    options.joinGapMs,
  );
  const settled = new Set<LabelledRun>();
  // Shortest first, one at a time: relabelling one run can make its neighbours join and grow.
  for (;;) {
    let shortest = -1;
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i] as LabelledRun;
      const length = turn.end_ms - turn.start_ms;
      const best = turns[shortest];
      if (
        length < options.minTurnMs &&
        !settled.has(turn) &&
        (best === undefined || length < best.end_ms - best.start_ms)
      )
        shortest = i;
    }
    if (shortest < 0 || turns.length <= 1) return turns;
    const turn = turns[shortest] as LabelledRun;
    const before = turns[shortest - 1];
    const after = turns[shortest + 1];
    // The closer neighbour in time; on a tie the longer one, which is the better-established speaker.
    const gapBefore = before ? turn.start_ms - before.end_ms : Number.POSITIVE_INFINITY;
    const gapAfter = after ? after.start_ms - turn.end_ms : Number.POSITIVE_INFINITY;
    let neighbour = gapBefore < gapAfter ? before : after;
    if (gapBefore === gapAfter && before && after) {
      neighbour = before.end_ms - before.start_ms >= after.end_ms - after.start_ms ? before : after;
    }
    if (!neighbour) return turns;
    turn.label = neighbour.label;
    if (Math.min(gapBefore, gapAfter) > options.joinGapMs) {
      // Isolated by long pauses: relabel only, so the silence around it does not become speech.
      settled.add(turn);
      continue;
    }
    neighbour.start_ms = Math.min(neighbour.start_ms, turn.start_ms);
    neighbour.end_ms = Math.max(neighbour.end_ms, turn.end_ms);
    turns.splice(shortest, 1);
    turns = join(turns, options.joinGapMs);
  }
}

function join(runs: LabelledRun[], gapMs: number): LabelledRun[] {
  const out: LabelledRun[] = [];
  for (const run of runs) {
    const last = out.at(-1);
    if (last && last.label === run.label && run.start_ms - last.end_ms <= gapMs)
      last.end_ms = Math.max(last.end_ms, run.end_ms);
    else out.push(run); // Same object: `settled` tracks runs by identity.
  }
  return out;
}
