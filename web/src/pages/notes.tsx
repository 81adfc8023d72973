import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { CollectionsPanel } from '../components/collections.tsx';
import { StatusBadge } from '../components/status.tsx';
import { UploadArea } from '../components/upload.tsx';
import { useApp } from '../context.ts';
import { when } from '../format.ts';
import { messageOf, useInterval, useLoad } from '../hooks.ts';
import { href } from '../router.ts';
import type { NoteSummary } from '../types.ts';

interface NoteList {
  notes: NoteSummary[];
  next_cursor: string | null;
}

const PAGE_SIZE = 25;
const POLL_MS = 4000;

/** The notes, newest first: the active ones (optionally one collection's), or the trash. */
export function NotesPage({
  state,
  collectionId,
}: {
  state: 'active' | 'trashed';
  collectionId: string | null;
}) {
  const { api, announce } = useApp();
  const [extra, setExtra] = useState<{ notes: NoteSummary[]; cursor: string | null } | null>(null);
  const key = `${state}:${collectionId ?? ''}`;
  const first = useLoad(key, async () => {
    setExtra(null);
    const { data } = await api.request<NoteList>('/v1/notes', {
      query: { limit: PAGE_SIZE, state, collection_id: collectionId },
    });
    return data;
  });
  const notes = [...(first.data?.notes ?? []), ...(extra?.notes ?? [])];
  const nextCursor = extra ? extra.cursor : (first.data?.next_cursor ?? null);
  // Notes still being transcribed change on their own: refresh quietly until they settle.
  const working = notes.some(
    (note) => note.transcription_status === 'queued' || note.transcription_status === 'processing',
  );
  useInterval(working && extra === null, POLL_MS, first.reload);

  const more = async () => {
    if (!nextCursor) return;
    try {
      const { data } = await api.request<NoteList>('/v1/notes', {
        query: { limit: PAGE_SIZE, state, collection_id: collectionId, cursor: nextCursor },
      });
      setExtra({ notes: [...(extra?.notes ?? []), ...data.notes], cursor: data.next_cursor });
    } catch (error) {
      announce(messageOf(error));
    }
  };

  const setState = async (note: NoteSummary, next: 'active' | 'trashed') => {
    try {
      await api.request(`/v1/notes/${note.note_id}`, { method: 'PATCH', body: { state: next } });
      announce(next === 'trashed' ? `“${note.title}” moved to the trash` : `“${note.title}” restored`);
      first.reload();
    } catch (error) {
      announce(error instanceof ApiError && error.status === 404 ? 'That note is gone' : messageOf(error));
    }
  };

  const heading = state === 'trashed' ? 'Trash' : 'Notes';
  return (
    <div class={state === 'active' ? 'with-side' : ''}>
      {state === 'active' && <CollectionsPanel selected={collectionId} />}
      <section aria-labelledby="notes-title" class="grow">
        <h1 id="notes-title">{heading}</h1>
        {state === 'active' && !collectionId && <UploadArea />}
        {first.error && (
          <p role="alert" class="error">
            {first.error}{' '}
            <button type="button" onClick={first.reload}>
              Try again
            </button>
          </p>
        )}
        {first.data && notes.length === 0 && (
          <p class="empty">
            {state === 'trashed'
              ? 'The trash is empty.'
              : collectionId
                ? 'No notes in this collection yet. Open a note to file it here.'
                : 'No notes yet. Upload a recording to make your first one.'}
          </p>
        )}
        <ul class="notes" aria-busy={first.loading}>
          {notes.map((note) => (
            <li key={note.note_id}>
              <a href={href(`notes/${note.note_id}`)} class="title">
                {note.title}
              </a>
              <span class="meta">
                {when(note.created_at)} <StatusBadge status={note.transcription_status} />
              </span>
              {state === 'active' ? (
                <button type="button" class="quiet" onClick={() => setState(note, 'trashed')}>
                  Trash<span class="visually-hidden"> “{note.title}”</span>
                </button>
              ) : (
                <button type="button" class="quiet" onClick={() => setState(note, 'active')}>
                  Restore<span class="visually-hidden"> “{note.title}”</span>
                </button>
              )}
            </li>
          ))}
        </ul>
        {nextCursor && (
          <button type="button" onClick={more}>
            Show more
          </button>
        )}
      </section>
    </div>
  );
}
