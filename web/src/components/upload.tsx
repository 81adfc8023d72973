import { useRef, useState } from 'preact/hooks';
import { useApp } from '../context.ts';
import { bytes } from '../format.ts';
import { messageOf } from '../hooks.ts';
import type { Destination } from '../recorder/session.tsx';
import { href, navigate } from '../router.ts';
import type { CollectionRef } from '../types.ts';
import { uploadRecording } from '../upload-recording.ts';
import { Recorder } from './recorder.tsx';
import { UnfinishedRecordings } from './unfinished-recordings.tsx';

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
/** Recordings sent at once from one pick or drop; the rest wait their turn (browsers open few connections per host). */
const AT_ONCE = 3;

/** One file of a pick or drop, with its own progress and its own outcome. */
interface FileUpload {
  key: number;
  name: string;
  sent: number;
  total: number;
  /** `queuing`: stored; the service is queuing its transcription. */
  state: 'waiting' | 'uploading' | 'queuing' | 'uploaded' | 'failed';
  noteId?: string;
  /** Why it failed, as a sentence that names the file once. */
  error?: string;
}

export function contentTypeOf(file: File): string | null {
  if (ACCEPTED.has(file.type)) return file.type;
  const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
  return TYPES_BY_EXTENSION[extension] ?? null;
}

let nextKey = 0;

/**
 * Drop recordings or pick them: each becomes its own note (filed in `collection`, when the person is
 * looking at one), with its own progress bar and its own failure. One recording opens its note page
 * when stored; several stay listed here, each linking to its note, while the list below shows them.
 */
export function UploadArea({
  collection = null,
  onNoteCreated,
}: {
  collection?: CollectionRef | null;
  /** A note now exists (the page's list can show it). */
  onNoteCreated?: () => void;
}) {
  const { api } = useApp();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [uploads, setUploads] = useState<FileUpload[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [speakers, setSpeakers] = useState('');
  const busy = uploads.some(
    (upload) => upload.state === 'waiting' || upload.state === 'uploading' || upload.state === 'queuing',
  );

  const update = (key: number, change: Partial<FileUpload>) =>
    setUploads((previous) =>
      previous.map((upload) => (upload.key === key ? { ...upload, ...change } : upload)),
    );

  /** The speakers field's number (undefined when blank), or null after saying why it is not one. */
  function readSpeakers(): number | undefined | null {
    const expected = speakers.trim() === '' ? undefined : Number(speakers);
    if (
      expected !== undefined &&
      !(Number.isInteger(expected) && expected >= 1 && expected <= MOST_SPEAKERS)
    ) {
      setError(`How many people speak: a whole number from 1 to ${MOST_SPEAKERS}, or leave it blank.`);
      return null;
    }
    return expected;
  }

  /** Where a recording from the microphone goes: this collection, with the speakers field's number. */
  function recordingDestination(): Destination | null {
    setError(null);
    const expected = readSpeakers();
    return expected === null ? null : { collection, speakersExpected: expected };
  }

  async function uploadAll(files: File[]) {
    setError(null);
    if (files.length === 0) return;
    const speakersExpected = readSpeakers();
    if (speakersExpected === null) return;
    const batch = files.map((file) => ({ file, key: nextKey++ }));
    setUploads(
      batch.map(({ file, key }) => ({ key, name: file.name, sent: 0, total: file.size, state: 'waiting' })),
    );
    let next = 0;
    let stored: string | null = null;
    const worker = async () => {
      while (next < batch.length) {
        const item = batch[next++];
        if (!item) return;
        const noteId = await uploadOne(item.file, item.key, speakersExpected, batch.length === 1);
        if (noteId) stored = noteId;
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, batch.length) }, worker));
    // One recording: its note page follows the transcription, as before.
    if (batch.length === 1 && stored) navigate(href(`notes/${stored}`));
  }

  async function uploadOne(file: File, key: number, speakersExpected: number | undefined, alone: boolean) {
    const contentType = contentTypeOf(file);
    if (!contentType) {
      update(key, {
        state: 'failed',
        error: `${file.name} is not a recording. Choose audio (WAV, MP3, M4A, AAC, OGG, Opus, WebM or FLAC) or a video (MP4, WebM, MOV or MKV).`,
      });
      return null;
    }
    update(key, { state: 'uploading' });
    try {
      const { noteId } = await uploadRecording(api, {
        file,
        contentType,
        speakersExpected,
        collection,
        onCreated: (created) => {
          update(key, { noteId: created });
          onNoteCreated?.();
        },
        onProgress: (sent) => update(key, { sent }),
        onStored: () => update(key, { state: 'queuing', sent: file.size }),
        // Only a lone recording opens its note page afterwards; a batch goes on to its next file.
        untilQueued: alone,
      });
      update(key, { state: 'uploaded', sent: file.size });
      return noteId;
    } catch (reason) {
      update(key, { state: 'failed', error: `${file.name}: ${messageOf(reason)}` });
      return null;
    }
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (busy) return;
    void uploadAll([...(event.dataTransfer?.files ?? [])]);
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
      <p>Drop recordings (audio or video) here (one note each), choose them, or record one now.</p>
      <input
        ref={input}
        id="upload-file"
        type="file"
        multiple
        accept="audio/*,video/mp4,video/webm,video/quicktime,video/x-matroska,.m4a,.opus,.flac,.mov,.mkv"
        class="visually-hidden"
        // The visible button below is the way in, by keyboard too; this field only holds the choice.
        tabIndex={-1}
        aria-label="Recordings to upload"
        onChange={(event) => {
          const files = [...(event.currentTarget.files ?? [])];
          event.currentTarget.value = '';
          void uploadAll(files);
        }}
      />
      <div class="new-note-actions">
        <button type="button" class="primary" disabled={busy} onClick={() => input.current?.click()}>
          {busy ? 'Uploading…' : 'Choose recordings'}
        </button>
        <Recorder destination={recordingDestination} />
      </div>
      <UnfinishedRecordings destination={recordingDestination} />
      {uploads.length > 0 && (
        <ul class="file-uploads" aria-label="Uploads">
          {uploads.map((upload) => (
            <FileUploadLine key={upload.key} upload={upload} />
          ))}
        </ul>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

/** A file's line: its progress while it uploads, then a link to its note, or why it failed. */
function FileUploadLine({ upload }: { upload: FileUpload }) {
  const id = `upload-progress-${upload.key}`;
  if (upload.state === 'failed') {
    return (
      <li class="progress-line">
        <p role="alert" class="error">
          {upload.error}
        </p>
      </li>
    );
  }
  if (upload.state === 'uploaded' && upload.noteId) {
    return (
      <li class="progress-line">
        <span>
          Uploaded {upload.name}: <a href={href(`notes/${upload.noteId}`)}>open its note</a>
        </span>
      </li>
    );
  }
  return (
    <li class="progress-line">
      <label for={id}>
        {upload.state === 'waiting'
          ? `Waiting to upload ${upload.name}`
          : upload.state === 'queuing'
            ? `Uploaded ${upload.name}; queuing it for transcription…`
            : `Uploading ${upload.name}: ${bytes(upload.sent)} of ${bytes(upload.total)}`}
      </label>
      <progress id={id} max={upload.total} value={upload.sent} />
    </li>
  );
}
