/**
 * A Web Lock named after each recording a tab is making or saving: another tab (or the next visit)
 * offers only kept recordings whose lock nobody holds, so a recording still going on elsewhere is
 * never offered as unfinished. The browser lets go of a closed tab's locks by itself.
 */
const PREFIX = 'notes-recording:';

/** Holds the lock until the returned function is called. */
export function holdLock(recordingId: string): () => void {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  void navigator.locks?.request(`${PREFIX}${recordingId}`, () => released);
  return release;
}

/** The recordings some tab of this browser is working on now. */
export async function lockedRecordings(): Promise<Set<string>> {
  const snapshot = await navigator.locks?.query();
  return new Set(
    (snapshot?.held ?? [])
      .map((lock) => lock.name ?? '')
      .filter((name) => name.startsWith(PREFIX))
      .map((name) => name.slice(PREFIX.length)),
  );
}
