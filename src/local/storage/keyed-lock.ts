/**
 * One holder per key at a time, in this process: writes to one object key run one after another,
 * so "store only if absent" (If-None-Match: *) is checked and done atomically.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves once `key` is free, with the function that frees it again (safe to call twice). */
  async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      // The last holder leaves no entry behind.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
