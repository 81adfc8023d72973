/**
 * Okapi BM25 with the usual parameters. One implementation serves the note index (which notes) and
 * passage ranking inside the chosen notes (which stretches of them).
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** How strongly a term that occurs `tf` times marks a document of `length` terms. */
export function termWeight(tf: number, length: number, averageLength: number): number {
  if (tf <= 0) return 0;
  const norm = 1 - BM25.b + BM25.b * (length / Math.max(averageLength, 1));
  return (tf * (BM25.k1 + 1)) / (tf + BM25.k1 * norm);
}

/** Rare terms count more; never negative (the "+1" variant). */
export function inverseDocumentFrequency(documents: number, documentFrequency: number): number {
  return Math.log(1 + (documents - documentFrequency + 0.5) / (documentFrequency + 0.5));
}
