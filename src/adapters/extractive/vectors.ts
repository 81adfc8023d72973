/** Sparse term vectors: only the terms a sentence or window actually contains. */
export type SparseVector = Map<string, number>;

/**
 * L2-normalised TF-IDF vectors, one per bag of terms, with a smoothed IDF (`ln(1 + N/df)`) so a term
 * present everywhere still counts a little instead of vanishing.
 */
export function tfidfVectors(bags: readonly (readonly string[])[]): SparseVector[] {
  const df = new Map<string, number>();
  for (const bag of bags) {
    for (const term of new Set(bag)) df.set(term, (df.get(term) ?? 0) + 1);
  }
  return bags.map((bag) => {
    const vector: SparseVector = new Map();
    for (const term of bag) vector.set(term, (vector.get(term) ?? 0) + 1);
    for (const [term, tf] of vector) vector.set(term, tf * Math.log(1 + bags.length / (df.get(term) ?? 1)));
    return normalised(vector);
  });
}

export function normalised(vector: SparseVector): SparseVector {
  let norm = 0;
  for (const weight of vector.values()) norm += weight * weight;
  norm = Math.sqrt(norm);
  if (norm === 0) return vector;
  for (const [term, weight] of vector) vector.set(term, weight / norm);
  return vector;
}

/** Cosine of two already-normalised vectors: iterate the smaller one. */
export function cosine(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, weight] of small) dot += weight * (large.get(term) ?? 0);
  return dot;
}

/** Term counts of several bags pooled, for window comparisons (chapters). */
export function countVector(bags: readonly (readonly string[])[]): SparseVector {
  const vector: SparseVector = new Map();
  for (const bag of bags) for (const term of bag) vector.set(term, (vector.get(term) ?? 0) + 1);
  return normalised(vector);
}
