// @ts-check

/**
 * Runs `work` for every item with at most `limit` running at once, and returns the results in the
 * order of `items` (not of completion). `work` must not throw: it reports its own failures.
 * @template T, R
 * @param {readonly T[]} items
 * @param {number} limit
 * @param {(item: T, index: number) => Promise<R>} work
 * @returns {Promise<R[]>}
 */
export async function mapWithLimit(items, limit, work) {
  /** @type {R[]} */
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(/** @type {T} */ (items[index]), index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
