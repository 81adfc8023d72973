/**
 * Speaker-count decision by the Bayesian information criterion (Chen & Gopalakrishnan, 1998): two
 * clusters are one speaker when a single Gaussian explains their frames better, after a penalty for
 * the extra parameters of two, than one Gaussian each. Unlike a fixed distance between window means,
 * this weighs how much speech each cluster has and how spread its frames are, so a speaker heard
 * only in short turns is neither merged away nor split off for one odd stretch.
 * Gaussians are diagonal over c1..c12, from the per-block sufficient statistics (windows.ts).
 */
import { type BlockStats, CEPSTRA } from './windows.ts';

export interface Gaussian {
  n: number;
  sum: Float64Array;
  sumsq: Float64Array;
}

/**
 * Weight of the parameter penalty. 10 ms frames are far from independent, so the textbook 1 splits one
 * voice into phonetic classes. Chosen with the over-clustering distance (diarize.ts) by
 * leave-one-source-out (bench/diarization-loso.ts): folds chose 4 or 8; 4 is best on all sources.
 */
export const BIC_PENALTY_WEIGHT = 4;

const emptyGaussian = (): Gaussian => ({
  n: 0,
  sum: new Float64Array(CEPSTRA),
  sumsq: new Float64Array(CEPSTRA),
});

/** n/2 * log det of the maximum-likelihood diagonal covariance. */
function halfNLogDet(g: Gaussian): number {
  let logDet = 0;
  for (let c = 0; c < CEPSTRA; c++) {
    const mean = (g.sum[c] ?? 0) / g.n;
    const variance = Math.max(1e-6, (g.sumsq[c] ?? 0) / g.n - mean * mean);
    logDet += Math.log(variance);
  }
  return (g.n / 2) * logDet;
}

function merged(a: Gaussian, b: Gaussian): Gaussian {
  return {
    n: a.n + b.n,
    sum: a.sum.map((value, c) => value + (b.sum[c] ?? 0)),
    sumsq: a.sumsq.map((value, c) => value + (b.sumsq[c] ?? 0)),
  };
}

/** Negative: one speaker explains both better (merge). Positive: two speakers. */
export function deltaBic(a: Gaussian, b: Gaussian, penaltyWeight = BIC_PENALTY_WEIGHT): number {
  const both = merged(a, b);
  const parameters = 2 * CEPSTRA; // means and variances
  const penalty = 0.5 * penaltyWeight * parameters * Math.log(both.n);
  return halfNLogDet(both) - halfNLogDet(a) - halfNLogDet(b) - penalty;
}

/**
 * Merges the clusters of `blockLabels` (one label per 250 ms block) pairwise, lowest ΔBIC first, while
 * ΔBIC is negative, or, with `clusters` given, until exactly that many are left. Returns each cluster's new label (merged clusters take the lower label); clusters
 * with no speech in any block are left out.
 */
export function mergeByBic(
  blockLabels: readonly number[],
  stats: BlockStats,
  penaltyWeight = BIC_PENALTY_WEIGHT,
  clusters?: number,
): Map<number, number> {
  const models = new Map<number, Gaussian>();
  blockLabels.forEach((label, block) => {
    let model = models.get(label);
    if (!model) {
      model = emptyGaussian();
      models.set(label, model);
    }
    stats.addCepstra(block, model);
  });
  for (const [label, model] of models) if (model.n < 2) models.delete(label);
  const mapping = new Map([...models.keys()].map((label) => [label, label]));
  for (;;) {
    const keys = [...models.keys()];
    // With a speaker count to reach, the closest pair is merged whatever its sign, down to that count.
    if (clusters !== undefined && keys.length <= clusters) return mapping;
    let best = clusters !== undefined ? Number.POSITIVE_INFINITY : 0;
    let pair: [number, number] | undefined;
    for (let i = 0; i < keys.length; i++) {
      for (let j = i + 1; j < keys.length; j++) {
        const a = keys[i] as number;
        const b = keys[j] as number;
        const score = deltaBic(models.get(a) as Gaussian, models.get(b) as Gaussian, penaltyWeight);
        if (score < best) {
          best = score;
          pair = a < b ? [a, b] : [b, a];
        }
      }
    }
    if (!pair) return mapping;
    const [keep, gone] = pair;
    models.set(keep, merged(models.get(keep) as Gaussian, models.get(gone) as Gaussian));
    models.delete(gone);
    for (const [label, target] of mapping) if (target === gone) mapping.set(label, keep);
  }
}
