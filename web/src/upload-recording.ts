import type { Api } from './api.ts';
import type { CollectionRef, Job } from './types.ts';

/** How long the app waits, once the bytes are stored, for the service to queue the transcription. */
const QUEUED_WITHIN_MS = 15_000;
/** The spec's polling rule for clients: at least 2 s apart. */
const QUEUED_POLL_MS = 2_000;

interface Upload {
  upload: { url: string; method: string; headers: Record<string, string> };
}

export interface RecordingUpload {
  file: File;
  contentType: string;
  /** The note's title; by default the file's name without its extension. */
  title?: string;
  /** The note's ID, when an earlier attempt chose it (submitTranscription is idempotent on it). */
  noteId?: string;
  speakersExpected: number | undefined;
  /** Filed here when the person is looking at a collection. */
  collection: CollectionRef | null;
  /** The note exists (the list can show it) before its bytes are sent. */
  onCreated: (noteId: string) => void;
  onProgress: (sent: number) => void;
  /** The bytes are stored; the service is about to queue the transcription. */
  onStored?: () => void;
  /**
   * Wait (15 s at most) for the service to queue the transcription before resolving: for a note page
   * about to open, so that it opens on "queued". A batch that opens no page does not wait.
   */
  untilQueued?: boolean;
}

export interface UploadedRecording {
  noteId: string;
  /** The service has queued the transcription (false: not asked to wait, or it had not yet when the app stopped waiting). */
  queued: boolean;
}

/**
 * One recording becomes one note: the note is created (and filed in the collection), then the bytes
 * go straight to the presigned URL (never through the API). With `untilQueued`, resolves once the
 * service has queued the transcription, so the note's page opens on "queued", not on a wait for the
 * upload the browser has just finished (the service notices a stored upload a moment after it lands).
 */
export async function uploadRecording(api: Api, recording: RecordingUpload): Promise<UploadedRecording> {
  const { file } = recording;
  const noteId = recording.noteId ?? crypto.randomUUID();
  const title = (recording.title ?? file.name.replace(/\.[^.]+$/, '')).slice(0, 200) || 'Recording';
  const { data } = await api.request<Upload>(`/v1/notes/${noteId}/transcription`, {
    method: 'POST',
    body: {
      title,
      content_type: recording.contentType,
      size_bytes: file.size,
      speakers_expected: recording.speakersExpected,
    },
  });
  if (recording.collection) {
    await api.request(`/v1/collections/${recording.collection.collection_id}/notes`, {
      method: 'POST',
      body: { note_id: noteId },
    });
  }
  recording.onCreated(noteId);
  await put(data.upload, file, recording.onProgress);
  recording.onStored?.();
  return { noteId, queued: recording.untilQueued ? await queued(api, noteId) : false };
}

/** Whether the service has taken the stored recording (its job is past `awaiting_upload`), within a short wait. */
async function queued(api: Api, noteId: string): Promise<boolean> {
  const until = Date.now() + QUEUED_WITHIN_MS;
  for (;;) {
    try {
      const { status, data } = await api.request<Job>(`/v1/notes/${noteId}/transcription`);
      // 200: transcribed already; 202: the job, with its stage.
      if (status !== 202 || data.stage !== 'awaiting_upload') return true;
    } catch {
      // The upload is stored: the note page says what became of it.
      return false;
    }
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, QUEUED_POLL_MS));
  }
}

/** XMLHttpRequest, because fetch reports no upload progress. */
function put(target: Upload['upload'], file: File, onProgress: (sent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(target.method, target.url);
    for (const [name, value] of Object.entries(target.headers)) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => onProgress(event.loaded);
    request.onload = () => {
      // 412: an earlier attempt already stored it (the upload URL stores once).
      if ((request.status >= 200 && request.status < 300) || request.status === 412) resolve();
      else reject(new Error(`The upload was refused (HTTP ${request.status}). Try again.`));
    };
    request.onerror = () =>
      reject(new Error('The upload was interrupted. Check your connection and try again.'));
    request.send(file);
  });
}
