import { useState } from 'preact/hooks';
import { useAction } from '../../action.ts';
import { useApp } from '../../context.ts';
import { href } from '../../router.ts';
import type { Note } from '../../types.ts';
import { useCollections } from '../collections.tsx';

/** The note's collections: each taken out with its ×, another chosen and added; failures shown here. */
export function Filing({ note, onChanged }: { note: Note; onChanged(): void }) {
  const { api, announce } = useApp();
  const collections = useCollections();
  const [choice, setChoice] = useState('');
  const unfiled = (collections.data ?? []).filter(
    (collection) => !note.collections.some((filed) => filed.collection_id === collection.collection_id),
  );
  const file = useAction(async () => {
    if (!choice) return;
    await api.request(`/v1/collections/${choice}/notes`, { method: 'POST', body: { note_id: note.note_id } });
    setChoice('');
    onChanged();
  });
  const unfile = useAction(async (collectionId: string, name: string) => {
    await api.request(`/v1/collections/${collectionId}/notes/${note.note_id}`, { method: 'DELETE' });
    announce(`Taken out of “${name}”`);
    onChanged();
  });
  return (
    <div class="filing">
      {note.collections.length > 0 && (
        <ul class="tags" aria-label="Collections of this note">
          {note.collections.map((collection) => (
            <li key={collection.collection_id}>
              <a href={href('', { collection: collection.collection_id })}>{collection.name}</a>
              <button
                type="button"
                class="quiet"
                disabled={unfile.pending}
                onClick={() => void unfile.run(collection.collection_id, collection.name)}
              >
                <span aria-hidden="true">×</span>
                <span class="visually-hidden">Take out of {collection.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {unfile.error && (
        <span role="alert" class="error inline">
          {unfile.error}
        </span>
      )}
      {unfiled.length > 0 && (
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void file.run();
          }}
        >
          <label for="file-into">Add to collection</label>
          <select id="file-into" value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
            <option value="">Choose…</option>
            {unfiled.map((collection) => (
              <option key={collection.collection_id} value={collection.collection_id}>
                {collection.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={file.pending}>
            {file.pending ? 'Adding…' : 'Add'}
          </button>
          {file.error && (
            <span role="alert" class="error inline">
              {file.error}
            </span>
          )}
        </form>
      )}
    </div>
  );
}
