import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { useCollections } from '../components/collections.tsx';
import { ConfirmDeletion } from '../components/confirm-deletion.tsx';
import { GeneratedPanel } from '../components/generated.tsx';
import { SaveOrCancel } from '../components/save-or-cancel.tsx';
import { StatusBadge } from '../components/status.tsx';
import { TranscriptView } from '../components/transcript.tsx';
import { useApp } from '../context.ts';
import type { Saved, TranscriptState } from '../corrections.ts';
import { bytes, stageLabel, when } from '../format.ts';
import { messageOf, useFocusOnMount, useInterval, useLoad } from '../hooks.ts';
import { usePlayer } from '../player.ts';
import { href, navigate } from '../router.ts';
import type { Note, Transcription } from '../types.ts';

const POLL_MS = 2000;
const EXPORTS = [
  { format: 'srt', label: 'SubRip (.srt)' },
  { format: 'vtt', label: 'WebVTT (.vtt)' },
  { format: 'md', label: 'Markdown (.md)' },
] as const;

interface NoteView {
  note: Note;
  etag: string | null;
  transcript: TranscriptState | null;
}

export function NotePage({ noteId, startAt }: { noteId: string; startAt: number }) {
  const { api, announce } = useApp();
  const player = usePlayer();
  const view = useLoad<NoteView>(noteId, async () => {
    const { data: note, etag } = await api.request<Note>(`/v1/notes/${noteId}`);
    if (note.transcription_job?.status !== 'completed') return { note, etag, transcript: null };
    const transcript = await api.request<Transcription>(`/v1/notes/${noteId}/transcription`);
    return { note, etag, transcript: { data: transcript.data, etag: transcript.etag } };
  });
  const note = view.data?.note ?? null;
  const job = note?.transcription_job ?? null;
  useInterval(job?.status === 'queued' || job?.status === 'processing', POLL_MS, view.reload);

  // A short-lived link (getNoteAudio): fetched again when the player finds it expired.
  const audioLink = useLoad(`${noteId}:audio:${note?.audio?.uploaded_at ?? 'none'}`, async () => {
    if (!note?.audio?.uploaded_at) return null;
    return (await api.request<{ url: string; expires_at: number }>(`/v1/notes/${noteId}/audio`)).data;
  });
  const audioUrl = audioLink.data?.url ?? null;
  const onAudioError = () => {
    if (audioLink.data && Date.now() >= audioLink.data.expires_at - 5000) audioLink.reload();
  };

  // Opened at a cited moment (?t=): start there once the recording can play.
  useEffect(() => {
    const audio = player.ref.current;
    if (!audio || !Number.isFinite(startAt) || !audioUrl) return;
    const seek = () => {
      audio.currentTime = startAt / 1000;
      document.querySelector('.segment.playing')?.scrollIntoView({ block: 'center' });
    };
    audio.addEventListener('loadedmetadata', seek, { once: true });
    return () => audio.removeEventListener('loadedmetadata', seek);
  }, [startAt, audioUrl, player.ref]);

  // An answer holds the new state and ETag: shown at once, so the next action is sent against it,
  // then everything is read again (the reload also cancels a read started before the change).
  const onSaved = (saved: Saved) => {
    const current = view.data;
    if (!current) return;
    view.replace({
      note: saved.note?.note ?? current.note,
      etag: saved.note?.etag ?? current.etag,
      transcript: saved.transcript ?? current.transcript,
    });
    view.reload();
  };

  if (view.error && !note) {
    return (
      <section>
        <h1>Note unavailable</h1>
        <p role="alert" class="error">
          {view.error}
        </p>
        <a href={href('')}>Back to your notes</a>
      </section>
    );
  }
  if (!note || !view.data) return <p aria-busy="true">Loading the note…</p>;

  return (
    <article class="note" aria-labelledby="note-title">
      <TitleEditor note={note} etag={view.data.etag} onChanged={view.reload} />
      <p class="meta">
        {when(note.created_at)} {note.audio && `· ${bytes(note.audio.size_bytes)}`}{' '}
        <StatusBadge status={note.transcription_status} />
        {note.state === 'trashed' && <span class="badge failed">In the trash</span>}
      </p>
      <Filing note={note} onChanged={view.reload} />
      {audioUrl && (
        // biome-ignore lint/a11y/useMediaCaption: the transcript on this page is the recording's text
        <audio
          ref={player.ref}
          controls
          preload="metadata"
          src={audioUrl}
          class="wide"
          aria-label="Recording"
          onError={onAudioError}
        />
      )}
      <JobState note={note} onChanged={view.reload} />
      {view.data.transcript && (
        <>
          <TranscriptView
            noteId={noteId}
            transcript={view.data.transcript}
            noteEtag={view.data.etag}
            speakerNames={note.speaker_names}
            player={player}
            onSaved={onSaved}
          />
          <section aria-labelledby="exports-title">
            <h2 id="exports-title">Export</h2>
            <p class="actions">
              {EXPORTS.map((item) => (
                <button type="button" key={item.format} onClick={() => download(item.format)}>
                  {item.label}
                </button>
              ))}
            </p>
          </section>
          <GeneratedPanel noteId={noteId} kind="insights" player={player} />
          <GeneratedPanel noteId={noteId} kind="epiphany" player={player} />
          <GeneratedPanel noteId={noteId} kind="deep_research" player={player} />
          <GeneratedPanel noteId={noteId} kind="podcast" player={player} />
        </>
      )}
      <NoteActions note={note} etag={view.data.etag} onChanged={view.reload} />
    </article>
  );

  async function download(format: string) {
    try {
      const { data } = await api.request<string>(`/v1/notes/${noteId}/transcription`, { query: { format } });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([data], { type: 'text/plain;charset=utf-8' }));
      link.download = `${note?.title.replace(/[^\p{L}\p{N} _-]+/gu, '').trim() || 'transcript'}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      announce(messageOf(error));
    }
  }
}

function TitleEditor({ note, etag, onChanged }: { note: Note; etag: string | null; onChanged(): void }) {
  const { api, announce } = useApp();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(note.title);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api.request(`/v1/notes/${note.note_id}`, {
        method: 'PATCH',
        ifMatch: etag,
        body: { title: title.trim() },
      });
      announce('Renamed');
      setEditing(false);
      onChanged();
    } catch (error) {
      announce(
        error instanceof ApiError && error.status === 412
          ? 'The note changed meanwhile: it was reloaded, rename it again'
          : messageOf(error),
      );
      if (error instanceof ApiError && error.status === 412) onChanged();
    }
  };
  if (!editing) {
    return (
      <div class="section-head">
        <h1 id="note-title">{note.title}</h1>
        <button
          type="button"
          class="quiet"
          onClick={() => {
            setTitle(note.title);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  return <TitleForm title={title} onChange={setTitle} onSave={save} onCancel={() => setEditing(false)} />;
}

function TitleForm({
  title,
  onChange,
  onSave,
  onCancel,
}: {
  title: string;
  onChange(title: string): void;
  onSave(event: Event): void;
  onCancel(): void;
}) {
  const focus = useFocusOnMount<HTMLInputElement>();
  return (
    <form class="inline" onSubmit={onSave}>
      <label for="note-title-input" id="note-title">
        Title
      </label>
      <input
        id="note-title-input"
        value={title}
        maxLength={200}
        required
        onInput={(event) => onChange(event.currentTarget.value)}
        ref={focus}
      />
      <SaveOrCancel onCancel={onCancel} />
    </form>
  );
}

function Filing({ note, onChanged }: { note: Note; onChanged(): void }) {
  const { api, announce } = useApp();
  const collections = useCollections();
  const [choice, setChoice] = useState('');
  const unfiled = (collections.data ?? []).filter(
    (collection) => !note.collections.some((filed) => filed.collection_id === collection.collection_id),
  );
  const file = async (event: Event) => {
    event.preventDefault();
    if (!choice) return;
    try {
      await api.request(`/v1/collections/${choice}/notes`, {
        method: 'POST',
        body: { note_id: note.note_id },
      });
      setChoice('');
      onChanged();
    } catch (error) {
      announce(messageOf(error));
    }
  };
  const unfile = async (collectionId: string, name: string) => {
    try {
      await api.request(`/v1/collections/${collectionId}/notes/${note.note_id}`, { method: 'DELETE' });
      announce(`Taken out of “${name}”`);
      onChanged();
    } catch (error) {
      announce(messageOf(error));
    }
  };
  return (
    <div class="filing">
      <ul class="tags" aria-label="Collections of this note">
        {note.collections.map((collection) => (
          <li key={collection.collection_id}>
            <a href={href('', { collection: collection.collection_id })}>{collection.name}</a>
            <button
              type="button"
              class="quiet"
              onClick={() => unfile(collection.collection_id, collection.name)}
            >
              <span aria-hidden="true">×</span>
              <span class="visually-hidden">Take out of {collection.name}</span>
            </button>
          </li>
        ))}
      </ul>
      {unfiled.length > 0 && (
        <form class="inline" onSubmit={file}>
          <label for="file-into">Add to collection</label>
          <select id="file-into" value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
            <option value="">Choose…</option>
            {unfiled.map((collection) => (
              <option key={collection.collection_id} value={collection.collection_id}>
                {collection.name}
              </option>
            ))}
          </select>
          <button type="submit">Add</button>
        </form>
      )}
    </div>
  );
}

/** Where the transcription is: its stage while it works, why it failed (with a retry), or nothing. */
function JobState({ note, onChanged }: { note: Note; onChanged(): void }) {
  const { api, announce } = useApp();
  const job = note.transcription_job;
  if (!job || job.status === 'completed') return null;
  if (job.status === 'failed') {
    const retry = async () => {
      if (!note.audio) return;
      try {
        const { data } = await api.request<{ upload?: unknown }>(`/v1/notes/${note.note_id}/transcription`, {
          method: 'POST',
          body: {
            title: note.title,
            content_type: note.audio.content_type,
            size_bytes: note.audio.size_bytes,
          },
        });
        announce(
          data.upload
            ? 'The recording is gone: upload it again as a new note'
            : 'Transcription started again',
        );
        onChanged();
      } catch (error) {
        announce(messageOf(error));
      }
    };
    return (
      <div role="alert" class="error">
        <p>The transcription failed: {job.detail ?? 'no reason was given'}</p>
        {note.audio && (
          <button type="button" onClick={retry}>
            Try again
          </button>
        )}
      </div>
    );
  }
  return (
    <div role="status" class="job">
      <span>{stageLabel(job.stage, job.progress)}</span>
      <progress aria-label="Transcription progress" max={1} value={job.progress ?? undefined} />
    </div>
  );
}

function NoteActions({ note, etag, onChanged }: { note: Note; etag: string | null; onChanged(): void }) {
  const { api, announce } = useApp();
  const [confirming, setConfirming] = useState<'note' | 'results' | null>(null);
  const setState = async (state: 'active' | 'trashed') => {
    try {
      await api.request(`/v1/notes/${note.note_id}`, { method: 'PATCH', ifMatch: etag, body: { state } });
      announce(state === 'trashed' ? 'Moved to the trash' : 'Restored');
      onChanged();
    } catch (error) {
      announce(messageOf(error));
    }
  };
  const remove = async () => {
    try {
      if (confirming === 'note') {
        await api.request(`/v1/notes/${note.note_id}`, { method: 'DELETE' });
        announce(`“${note.title}” was deleted for good`);
        navigate(href(''));
      } else {
        await api.request(`/v1/notes/${note.note_id}/transcription`, { method: 'DELETE' });
        announce('The transcript and everything made from it were removed');
        setConfirming(null);
        onChanged();
      }
    } catch (error) {
      announce(messageOf(error));
    }
  };
  return (
    <section aria-labelledby="actions-title" class="danger-zone">
      <h2 id="actions-title">Manage</h2>
      <p class="actions">
        {note.state === 'active' ? (
          <button type="button" onClick={() => setState('trashed')}>
            Move to trash
          </button>
        ) : (
          <button type="button" onClick={() => setState('active')}>
            Restore
          </button>
        )}
        {note.transcription_job?.status === 'completed' && (
          <button type="button" class="danger" onClick={() => setConfirming('results')}>
            Remove transcript and results…
          </button>
        )}
        <button type="button" class="danger" onClick={() => setConfirming('note')}>
          Delete for good…
        </button>
      </p>
      {confirming && (
        <ConfirmDeletion
          what={
            confirming === 'note'
              ? `the note “${note.title}”, its recording and everything made from it`
              : `the transcript of “${note.title}”, its Insights and artifacts (the recording stays)`
          }
          onConfirm={remove}
          onCancel={() => setConfirming(null)}
        />
      )}
    </section>
  );
}
