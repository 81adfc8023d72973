/**
 * Agglomerative (average-linkage) clustering of window embeddings with an automatic number of clusters:
 * merging stops when the closest two clusters are further apart than `threshold`, or when
 * `clusters` is given, at exactly that many. Distance is Euclidean divided by sqrt(dimensions) (RMS
 * difference per dimension), so the threshold does not depend on the embedding size.
 */

export interface ClusterOptions {
  /** Stop merging above this distance (ignored when `clusters` is set). */
  threshold: number;
  /** Force this many clusters (a `speakers_expected` hint). */
  clusters?: number;
  /** Clusters weighing less than this share of the total are folded into the nearest other cluster. */
  minClusterShare: number;
  /** Above this many points, cluster an evenly spaced sample and assign the rest to the nearest centroid (O(n^2) memory). */
  maxPoints: number;
}

export const DEFAULT_CLUSTER_OPTIONS: ClusterOptions = {
  threshold: 0.82,
  minClusterShare: 0.05,
  maxPoints: 800,
};

export function distance(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += ((a[i] ?? 0) - (b[i] ?? 0)) ** 2;
  return Math.sqrt(sum / Math.max(1, a.length));
}

/**
 * Returns a cluster label (0..k-1, in order of first appearance) for each point. `weights` (e.g.
 * speech frames per window) count towards the minimum cluster size; default 1 each.
 */
export function cluster(
  points: Float64Array[],
  options: Partial<ClusterOptions> = {},
  weights?: number[],
): number[] {
  const settings = { ...DEFAULT_CLUSTER_OPTIONS, ...options };
  if (points.length === 0) return [];
  const sampleIndexes = sample(points.length, settings.maxPoints);
  const sampled = sampleIndexes.map((i) => points[i] as Float64Array);
  let labels = agglomerate(sampled, settings);
  if (sampled.length < points.length) labels = nearestCentroid(points, centroids(sampled, labels));
  labels = foldSmallClusters(points, labels, weights ?? points.map(() => 1), settings);
  return renumberByFirstAppearance(labels);
}

function sample(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.floor((i * n) / max));
}

function agglomerate(points: Float64Array[], settings: ClusterOptions): number[] {
  const n = points.length;
  const matrix = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = distance(points[i] as Float64Array, points[j] as Float64Array);
      matrix[i * n + j] = d;
      matrix[j * n + i] = d;
    }
  }
  const size = new Array<number>(n).fill(1);
  const active = new Array<boolean>(n).fill(true);
  const parent = Array.from({ length: n }, (_, i) => i);
  let count = n;
  const target = settings.clusters !== undefined ? Math.max(1, Math.min(n, settings.clusters)) : 1;
  while (count > target) {
    let best = Number.POSITIVE_INFINITY;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!active[i]) continue;
      for (let j = i + 1; j < n; j++) {
        if (!active[j]) continue;
        const d = matrix[i * n + j] ?? 0;
        if (d < best) {
          best = d;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0 || (settings.clusters === undefined && best > settings.threshold)) break;
    // Lance-Williams update for average linkage: the merged cluster keeps index bi.
    const si = size[bi] ?? 1;
    const sj = size[bj] ?? 1;
    for (let k = 0; k < n; k++) {
      if (!active[k] || k === bi || k === bj) continue;
      const d = (si * (matrix[bi * n + k] ?? 0) + sj * (matrix[bj * n + k] ?? 0)) / (si + sj);
      matrix[bi * n + k] = d;
      matrix[k * n + bi] = d;
    }
    size[bi] = si + sj;
    active[bj] = false;
    parent[bj] = bi;
    count--;
  }
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] ?? r;
    return r;
  };
  return points.map((_, i) => root(i));
}

export function centroids(points: Float64Array[], labels: number[]): Map<number, Float64Array> {
  const sums = new Map<number, { sum: Float64Array; n: number }>();
  points.forEach((point, i) => {
    const label = labels[i] ?? 0;
    let entry = sums.get(label);
    if (!entry) {
      entry = { sum: new Float64Array(point.length), n: 0 };
      sums.set(label, entry);
    }
    for (let d = 0; d < point.length; d++) entry.sum[d] = (entry.sum[d] ?? 0) + (point[d] ?? 0);
    entry.n++;
  });
  const out = new Map<number, Float64Array>();
  for (const [label, { sum, n }] of sums)
    out.set(
      label,
      sum.map((value) => value / n),
    );
  return out;
}

export function nearestCentroid(points: Float64Array[], centres: Map<number, Float64Array>): number[] {
  return points.map((point) => {
    let best = Number.POSITIVE_INFINITY;
    let label = 0;
    for (const [candidate, centre] of centres) {
      const d = distance(point, centre);
      if (d < best) {
        best = d;
        label = candidate;
      }
    }
    return label;
  });
}

/**
 * A cluster of a few windows is more often one odd stretch of a known speaker (a laugh, a shouted word)
 * than a new person: fold it into the nearest cluster, largest-last so big clusters stay intact.
 */
function foldSmallClusters(
  points: Float64Array[],
  labels: number[],
  weights: number[],
  settings: ClusterOptions,
): number[] {
  let current = labels.slice();
  const total = weights.reduce((a, b) => a + b, 0);
  for (;;) {
    const weight = new Map<number, number>();
    for (const [i, label] of current.entries())
      weight.set(label, (weight.get(label) ?? 0) + (weights[i] ?? 0));
    if (weight.size <= 1) return current;
    const [smallest, smallestWeight] = [...weight].sort((a, b) => a[1] - b[1])[0] ?? [0, 0];
    const forced = settings.clusters !== undefined && weight.size <= settings.clusters;
    if (forced || smallestWeight >= settings.minClusterShare * total) return current;
    const centres = centroids(points, current);
    centres.delete(smallest);
    const reassigned = nearestCentroid(points, centres);
    current = current.map((label, i) => (label === smallest ? (reassigned[i] ?? label) : label));
  }
}

function renumberByFirstAppearance(labels: number[]): number[] {
  const order = new Map<number, number>();
  return labels.map((label) => {
    let mapped = order.get(label);
    if (mapped === undefined) {
      mapped = order.size;
      order.set(label, mapped);
    }
    return mapped;
  });
}
