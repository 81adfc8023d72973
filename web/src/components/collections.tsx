import { useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { useApp } from '../context.ts';
import { type Loaded, useLoad } from '../hooks.ts';
import { periodWords } from '../retention-words.ts';
import { href, navigate } from '../router.ts';
import type { Collection } from '../types.ts';
import { ActionFeedback } from './action-feedback.tsx';
import { Skeleton } from './skeleton.tsx';

export function useCollections() {
  const { api } = useApp();
  return useLoad('collections', async () => {
    const { data } = await api.request<{ collections: Collection[] }>('/v1/collections');
    return data.collections;
  });
}

/** The account's collections: pick one to list its notes; create, rename and delete them. */
export function CollectionsPanel({
  selected,
  collections,
}: {
  selected: string | null;
  collections: Loaded<Collection[]>;
}) {
  const { api, announce } = useApp();
  const [name, setName] = useState('');
  const chosen = collections.data?.find((collection) => collection.collection_id === selected) ?? null;

  const create = useAction(async () => {
    const wanted = name.trim();
    await api.request('/v1/collections', { method: 'POST', body: { name: wanted } });
    announce(`Collection “${wanted}” created`);
    setName('');
    collections.reload();
  });

  const rename = useAction(async (collection: Collection) => {
    const next = prompt('New name for the collection', collection.name)?.trim();
    if (!next || next === collection.name) return;
    await api.request(`/v1/collections/${collection.collection_id}`, {
      method: 'PATCH',
      body: { name: next },
    });
    announce(`Collection renamed “${next}”`);
    collections.reload();
  });

  const remove = useAction(async (collection: Collection) => {
    if (!confirm(`Delete the collection “${collection.name}”? Its notes stay in your notes.`)) return;
    await api.request(`/v1/collections/${collection.collection_id}`, { method: 'DELETE' });
    announce(`Collection “${collection.name}” deleted; its notes are still here`);
    navigate(href(''));
    collections.reload();
  });

  return (
    <aside aria-labelledby="collections-title" class="side">
      <h2 id="collections-title">Collections</h2>
      {collections.loading && !collections.data && <Skeleton label="Loading collections…" lines={2} />}
      {collections.error && (
        <p role="alert" class="error">
          {collections.error}{' '}
          <button type="button" onClick={collections.reload}>
            Try again
          </button>
        </p>
      )}
      <ul class="plain">
        <li>
          <a href={href('')} aria-current={selected === null ? 'page' : undefined}>
            All notes
          </a>
        </li>
        {(collections.data ?? []).map((collection) => (
          <li key={collection.collection_id}>
            <a
              href={href('', { collection: collection.collection_id })}
              aria-current={collection.collection_id === selected ? 'page' : undefined}
            >
              {collection.name}
            </a>
            {collection.retention_days ? (
              <span class="meta retention-days">
                {' '}
                <span class="visually-hidden">keeps notes </span>
                {periodWords(collection.retention_days)}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {chosen && (
        <div class="actions">
          <button
            type="button"
            class="quiet"
            onClick={() => void rename.run(chosen)}
            disabled={rename.pending}
          >
            {rename.pending ? 'Renaming…' : `Rename “${chosen.name}”`}
          </button>
          <ActionFeedback action={rename} />
          <button
            type="button"
            class="quiet danger"
            onClick={() => void remove.run(chosen)}
            disabled={remove.pending}
          >
            {remove.pending ? 'Deleting…' : `Delete “${chosen.name}”`}
          </button>
          <ActionFeedback action={remove} />
        </div>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
        class="inline"
      >
        <label for="new-collection">New collection</label>
        <input
          id="new-collection"
          value={name}
          maxLength={100}
          required
          onInput={(e) => setName(e.currentTarget.value)}
        />
        {/* aria-disabled, not disabled: the focus stays on the button (a second press is ignored). */}
        <button type="submit" aria-disabled={create.pending ? 'true' : undefined}>
          {create.pending ? 'Creating…' : 'Create'}
        </button>
        <ActionFeedback action={create} />
      </form>
    </aside>
  );
}
