import { useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { ActionFeedback } from '../components/action-feedback.tsx';
import { CollectionInstructions } from '../components/collection-instructions.tsx';
import { CollectionRetention } from '../components/collection-retention.tsx';
import { CollectionsPanel, useCollections } from '../components/collections.tsx';
import { NoteRow } from '../components/note-row.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { UploadArea } from '../components/upload.tsx';
import { useApp } from '../context.ts';
import { useInterval, useLoad } from '../hooks.ts';
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
  const { api } = useApp();
  const collections = useCollections();
  const [extra, setExtra] = useState<{ notes: NoteSummary[]; cursor: string | null } | null>(null);
  const [leaving, setLeaving] = useState<ReadonlySet<string>>(new Set());
  const key = `${state}:${collectionId ?? ''}`;
  const first = useLoad(key, async () => {
    setExtra(null);
    const { data } = await api.request<NoteList>('/v1/notes', {
      query: { limit: PAGE_SIZE, state, collection_id: collectionId },
    });
    setLeaving(new Set());
    return data;
  });
  const notes = [...(first.data?.notes ?? []), ...(extra?.notes ?? [])];
  const shown = notes.filter((note) => !leaving.has(note.note_id));
  const nextCursor = extra ? extra.cursor : (first.data?.next_cursor ?? null);
  // Notes still being transcribed change on their own: refresh quietly until they settle.
  const working = notes.some(
    (note) => note.transcription_status === 'queued' || note.transcription_status === 'processing',
  );
  useInterval(working && extra === null, POLL_MS, first.reload);

  const more = useAction(async () => {
    if (!nextCursor) return;
    const { data } = await api.request<NoteList>('/v1/notes', {
      query: { limit: PAGE_SIZE, state, collection_id: collectionId, cursor: nextCursor },
    });
    setExtra({ notes: [...(extra?.notes ?? []), ...data.notes], cursor: data.next_cursor });
  });

  const mark = (noteId: string, gone: boolean) =>
    setLeaving((previous) => {
      const next = new Set(previous);
      if (gone) next.add(noteId);
      else next.delete(noteId);
      return next;
    });

  const collection = collectionId
    ? collections.data?.find((candidate) => candidate.collection_id === collectionId)
    : undefined;
  // A collection's view is titled with its name (a placeholder while the names load).
  const heading = state === 'trashed' ? 'Trash' : collectionId ? (collection?.name ?? 'Collection') : 'Notes';
  return (
    <div class={state === 'active' ? 'with-side' : ''}>
      {state === 'active' && <CollectionsPanel selected={collectionId} collections={collections} />}
      <section aria-labelledby="notes-title" class="grow">
        <h1 id="notes-title">{heading}</h1>
        {collectionId && <p class="meta">A collection of your notes.</p>}
        {state === 'active' && collection && (
          <CollectionInstructions
            key={collection.collection_id}
            collection={collection}
            onSaved={collections.reload}
          />
        )}
        {state === 'active' && collection && (
          <CollectionRetention
            key={collection.collection_id}
            collection={collection}
            onSaved={collections.reload}
          />
        )}
        {state === 'active' && <UploadArea collection={collection ?? null} onNoteCreated={first.reload} />}
        {first.error && (
          <p role="alert" class="error">
            {first.error}{' '}
            <button type="button" onClick={first.reload}>
              Try again
            </button>
          </p>
        )}
        {first.loading && !first.data && <Skeleton label={`Loading ${heading.toLowerCase()}…`} />}
        {first.data && shown.length === 0 && (
          <p class="empty">
            {state === 'trashed'
              ? 'The trash is empty.'
              : collectionId
                ? 'No notes in this collection yet. Upload a recording here, or open a note to file it here.'
                : 'No notes yet. Upload a recording to make your first one.'}
          </p>
        )}
        <ul class="notes" aria-busy={first.loading}>
          {notes.map((note) => (
            <NoteRow
              key={note.note_id}
              note={note}
              leaving={leaving.has(note.note_id)}
              onLeave={() => mark(note.note_id, true)}
              onStay={() => mark(note.note_id, false)}
              onChanged={first.reload}
            />
          ))}
        </ul>
        {nextCursor && (
          <p>
            <button type="button" onClick={() => void more.run()} disabled={more.pending}>
              {more.pending ? 'Loading more…' : 'Show more'}
            </button>
            <ActionFeedback action={more} />
          </p>
        )}
      </section>
    </div>
  );
}
