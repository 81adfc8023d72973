/**
 * Recordings kept in this browser (IndexedDB) while they are made, a second of audio at a time, so a
 * closed tab, a crash or a failed upload loses at most the last second: the next visit offers to save
 * or discard what was kept. A recording is removed once its note holds it, or when discarded.
 */

export interface KeptRecording {
  id: string;
  /** Offered only to the account that made it (a shared computer may have several). */
  accountId: string;
  /** The note it becomes: the same ID on every attempt, so a retry never makes a second note. */
  noteId: string;
  title: string;
  /** What MediaRecorder wrote, e.g. `audio/webm;codecs=opus`. */
  mimeType: string;
  startedAt: number;
  /** Recorded so far (pauses excluded), as of the last kept chunk. */
  elapsedMs: number;
}

interface Chunk {
  recording: string;
  seq: number;
  data: Blob;
}

const DATABASE = 'notes-recordings';
const RECORDINGS = 'recordings';
const CHUNKS = 'chunks';

let opened: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
  opened ??= new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(RECORDINGS, { keyPath: 'id' });
      request.result.createObjectStore(CHUNKS, { keyPath: ['recording', 'seq'] });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened'));
  }).catch((error: unknown) => {
    opened = null;
    throw error;
  });
  return opened;
}

/** Runs `work` in one transaction and resolves when it is committed (durable), with what `work` made. */
async function transaction<T>(
  stores: string[],
  mode: IDBTransactionMode,
  work: (transaction: IDBTransaction) => T,
): Promise<T> {
  const db = await database();
  return new Promise<T>((resolve, reject) => {
    const tx = db.transaction(stores, mode);
    const result = work(tx);
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

function chunksOf(id: string): IDBKeyRange {
  return IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER]);
}

export function keepRecording(recording: KeptRecording): Promise<void> {
  return transaction([RECORDINGS], 'readwrite', (tx) => {
    tx.objectStore(RECORDINGS).put(recording);
  });
}

/** Adds the next piece of audio and how long the recording is now, together. */
export function keepChunk(recording: KeptRecording, seq: number, data: Blob): Promise<void> {
  return transaction([RECORDINGS, CHUNKS], 'readwrite', (tx) => {
    tx.objectStore(CHUNKS).put({ recording: recording.id, seq, data } satisfies Chunk);
    tx.objectStore(RECORDINGS).put(recording);
  });
}

/** The account's kept recordings, oldest first. */
export async function keptRecordings(accountId: string): Promise<KeptRecording[]> {
  const all = await transaction([RECORDINGS], 'readonly', (tx) => tx.objectStore(RECORDINGS).getAll());
  return (all.result as KeptRecording[])
    .filter((recording) => recording.accountId === accountId)
    .sort((a, b) => a.startedAt - b.startedAt);
}

/** The recording's audio as one file's bytes: the pieces in the order they were recorded. */
export async function keptAudio(recording: KeptRecording): Promise<Blob> {
  const request = await transaction([CHUNKS], 'readonly', (tx) =>
    tx.objectStore(CHUNKS).getAll(chunksOf(recording.id)),
  );
  const chunks = (request.result as Chunk[]).sort((a, b) => a.seq - b.seq);
  return new Blob(
    chunks.map((chunk) => chunk.data),
    { type: recording.mimeType },
  );
}

export function forgetRecording(id: string): Promise<void> {
  return transaction([RECORDINGS, CHUNKS], 'readwrite', (tx) => {
    tx.objectStore(CHUNKS).delete(chunksOf(id));
    tx.objectStore(RECORDINGS).delete(id);
  });
}
