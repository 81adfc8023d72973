/**
 * Uploads this tab finished. The service learns that the recording arrived a moment after the
 * upload ends (the storage event), so for that moment it still reports `awaiting_upload`; the app
 * knows better, and says the recording is queued for transcription.
 */
const FINISHED_KEY = 'notes.uploads-finished';
const KEPT = 20;

function finished(): string[] {
  try {
    const stored = JSON.parse(sessionStorage.getItem(FINISHED_KEY) ?? '[]') as unknown;
    return Array.isArray(stored) ? stored.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export function recordUploadFinished(noteId: string): void {
  sessionStorage.setItem(FINISHED_KEY, JSON.stringify([noteId, ...finished()].slice(0, KEPT)));
}

export function uploadFinished(noteId: string): boolean {
  return finished().includes(noteId);
}
