// @ts-check

/**
 * Decides when a file has stopped growing: two looks at least `settleMs` apart that find the same
 * size and modification time. A copy, download or recorder still writing changes one of them (the
 * size for appends, the time for writes in place), so a half-written file is never taken; one
 * whose writer pauses longer than `settleMs` could be, which is why the pause is an option.
 */
export class StabilityTracker {
  #settleMs;
  /** @type {Map<string, { size: number, mtimeMs: number, since: number }>} */
  #seen = new Map();

  /** @param {number} settleMs */
  constructor(settleMs) {
    this.#settleMs = settleMs;
  }

  /**
   * Records a look at a file; true when it has not changed for `settleMs`.
   * @param {{ path: string, size: number, mtimeMs: number }} file
   * @param {number} now
   * @returns {boolean}
   */
  isStable(file, now) {
    const previous = this.#seen.get(file.path);
    if (!previous || previous.size !== file.size || previous.mtimeMs !== file.mtimeMs) {
      this.#seen.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, since: now });
      return false;
    }
    return now - previous.since >= this.#settleMs;
  }

  /**
   * Starts over for a file (it changed while it was read).
   * @param {string} path
   */
  forget(path) {
    this.#seen.delete(path);
  }

  /**
   * Drops files no longer in the folder.
   * @param {Set<string>} present
   */
  keepOnly(present) {
    for (const path of this.#seen.keys()) if (!present.has(path)) this.#seen.delete(path);
  }

  /**
   * When the earliest of `paths` may be stable: the time of the next look worth taking.
   * @param {Iterable<string>} paths files not yet stable
   * @returns {number | undefined} epoch ms
   */
  nextCheckAt(paths) {
    let next;
    for (const path of paths) {
      const seen = this.#seen.get(path);
      if (seen && (next === undefined || seen.since + this.#settleMs < next))
        next = seen.since + this.#settleMs;
    }
    return next;
  }
}
