import { useRef, useState } from 'preact/hooks';
import { useApp } from '../context.ts';
import { bytes } from '../format.ts';
import { messageOf } from '../hooks.ts';
import { href, navigate } from '../router.ts';
import type { CollectionRef } from '../types.ts';
import { recordUploadFinished } from '../uploads.ts';

/** What the service accepts (submitTranscription's content_type), by file extension when the browser has no type. */
const TYPES_BY_EXTENSION: Record<string, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  webm: 'audio/webm',
  flac: 'audio/flac',
};
const ACCEPTED = new Set([
  ...Object.values(TYPES_BY_EXTENSION),
  'audio/x-wav',
  'audio/wave',
  'audio/x-m4a',
  'audio/x-flac',
  'audio/mp3',
  'video/webm',
]);

/** submitTranscription's `speakers_expected` bounds (openapi.yaml). */
const MOST_SPEAKERS = 10;

interface Upload {
  upload: { url: string; method: string; headers: Record<string, string> };
}

export function contentTypeOf(file: File): string | null {
  if (ACCEPTED.has(file.type)) return file.type;
  const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
  return TYPES_BY_EXTENSION[extension] ?? null;
}

/**
 * Drop a recording or pick one: the note is created (and filed in `collection`, when the person is
 * looking at one), then the bytes go straight to the presigned URL (never through the API), with a
 * progress bar; the note page then follows the transcription.
 */
export function UploadArea({ collection = null }: { collection?: CollectionRef | null }) {
  const { api } = useApp();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<{ name: string; sent: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [speakers, setSpeakers] = useState('');

  async function upload(file: File) {
    setError(null);
    const speakersExpected = speakers.trim() === '' ? undefined : Number(speakers);
    if (
      speakersExpected !== undefined &&
      !(Number.isInteger(speakersExpected) && speakersExpected >= 1 && speakersExpected <= MOST_SPEAKERS)
    ) {
      setError(`How many people speak: a whole number from 1 to ${MOST_SPEAKERS}, or leave it blank.`);
      return;
    }
    const contentType = contentTypeOf(file);
    if (!contentType) {
      setError(
        `${file.name} is not a recording the service reads (WAV, MP3, M4A, AAC, OGG, Opus, WebM, FLAC, or a video: MP4, WebM, MOV, MKV).`,
      );
      return;
    }
    const noteId = crypto.randomUUID();
    try {
      setProgress({ name: file.name, sent: 0, total: file.size });
      const title = file.name.replace(/\.[^.]+$/, '').slice(0, 200) || 'Recording';
      const { data } = await api.request<Upload>(`/v1/notes/${noteId}/transcription`, {
        method: 'POST',
        body: {
          title,
          content_type: contentType,
          size_bytes: file.size,
          speakers_expected: speakersExpected,
        },
      });
      if (collection) {
        await api.request(`/v1/collections/${collection.collection_id}/notes`, {
          method: 'POST',
          body: { note_id: noteId },
        });
      }
      await put(data.upload, file, (sent) => setProgress({ name: file.name, sent, total: file.size }));
      recordUploadFinished(noteId);
      navigate(href(`notes/${noteId}`));
    } catch (reason) {
      setError(messageOf(reason));
    } finally {
      setProgress(null);
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (file) void upload(file);
  };

  return (
    <section
      class={`upload${dragging ? ' dragging' : ''}`}
      aria-labelledby="upload-title"
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <h2 id="upload-title">{collection ? `New note in “${collection.name}”` : 'New note'}</h2>
      <p class="speakers-field">
        <label for="speakers-expected">How many people speak?</label>{' '}
        <input
          id="speakers-expected"
          type="number"
          inputMode="numeric"
          min={1}
          max={MOST_SPEAKERS}
          step={1}
          value={speakers}
          aria-describedby="speakers-expected-hint"
          onInput={(event) => setSpeakers(event.currentTarget.value)}
        />{' '}
        <span id="speakers-expected-hint" class="meta">
          Optional: blank lets the service work it out.
        </span>
      </p>
      <p>Drop a recording (audio or video) here, or</p>
      <input
        ref={input}
        id="upload-file"
        type="file"
        accept="audio/*,video/mp4,video/webm,video/quicktime,video/x-matroska,.m4a,.opus,.flac,.mov,.mkv"
        class="visually-hidden"
        // The visible button below is the way in, by keyboard too; this field only holds the choice.
        tabIndex={-1}
        aria-label="Recording to upload"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = '';
          if (file) void upload(file);
        }}
      />
      <button
        type="button"
        class="primary"
        disabled={progress !== null}
        onClick={() => input.current?.click()}
      >
        {progress ? 'Uploading…' : 'Choose a recording'}
      </button>
      {progress && (
        <div class="progress-line">
          <label for="upload-progress">
            Uploading {progress.name}: {bytes(progress.sent)} of {bytes(progress.total)}
          </label>
          <progress id="upload-progress" max={progress.total} value={progress.sent} />
        </div>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
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
