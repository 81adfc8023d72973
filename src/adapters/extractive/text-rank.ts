import { cosine, type SparseVector } from './vectors.ts';

/**
 * Largest similarity graph ranked. Building it costs O(n^2) similarities, so long recordings first
 * keep the sentences closest to the transcript's centroid (a cheap TF-IDF centrality, O(n)), which
 * is where PageRank's mass would concentrate anyway.
 */
export const MAX_GRAPH_NODES = 300;
const DAMPING = 0.85;
const MAX_ITERATIONS = 50;
const TOLERANCE = 1e-6;

/**
 * TextRank over sentences: nodes are sentences, edges their TF-IDF cosine similarity, scores the
 * stationary weighted PageRank. Returns one score per input vector (0 for those left out of the graph).
 */
export function textRank(vectors: readonly SparseVector[], maxNodes = MAX_GRAPH_NODES): number[] {
  const nodes = selectNodes(vectors, maxNodes);
  const n = nodes.length;
  const scores = new Array<number>(vectors.length).fill(0);
  if (n === 0) return scores;

  const edges: { to: number; weight: number }[][] = Array.from({ length: n }, () => []);
  const outWeight = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const weight = cosine(
        vectors[nodes[i] as number] as SparseVector,
        vectors[nodes[j] as number] as SparseVector,
      );
      if (weight <= 0) continue;
      edges[i]?.push({ to: j, weight });
      edges[j]?.push({ to: i, weight });
      outWeight[i] = (outWeight[i] ?? 0) + weight;
      outWeight[j] = (outWeight[j] ?? 0) + weight;
    }
  }

  let rank = new Array<number>(n).fill(1 / n);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    // Dangling nodes (no similar sentence) spread their mass evenly, so the ranks keep summing to 1.
    let dangling = 0;
    for (let i = 0; i < n; i++) if ((outWeight[i] ?? 0) === 0) dangling += rank[i] ?? 0;
    const next = new Array<number>(n).fill((1 - DAMPING) / n + (DAMPING * dangling) / n);
    for (let i = 0; i < n; i++) {
      const out = outWeight[i] ?? 0;
      if (out === 0) continue;
      const share = (DAMPING * (rank[i] ?? 0)) / out;
      for (const edge of edges[i] ?? []) next[edge.to] = (next[edge.to] ?? 0) + share * edge.weight;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs((next[i] ?? 0) - (rank[i] ?? 0));
    rank = next;
    if (delta < TOLERANCE) break;
  }
  nodes.forEach((node, i) => {
    scores[node] = rank[i] ?? 0;
  });
  return scores;
}

function selectNodes(vectors: readonly SparseVector[], maxNodes: number): number[] {
  const all = vectors.map((_, i) => i).filter((i) => (vectors[i]?.size ?? 0) > 0);
  if (all.length <= maxNodes) return all;
  const centroid: SparseVector = new Map();
  for (const i of all) {
    for (const [term, weight] of vectors[i] ?? []) centroid.set(term, (centroid.get(term) ?? 0) + weight);
  }
  return all
    .map((i) => ({ i, centrality: cosine(vectors[i] as SparseVector, centroid) }))
    .sort((a, b) => b.centrality - a.centrality)
    .slice(0, maxNodes)
    .map((entry) => entry.i)
    .sort((a, b) => a - b);
}
