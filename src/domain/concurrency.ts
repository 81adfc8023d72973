/** Runs `task` over the items with at most `concurrency` in flight. */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) await task(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
