import { useState } from 'preact/hooks';
import { useApp } from '../context.ts';
import { messageOf, useLoad } from '../hooks.ts';
import { href, navigate } from '../router.ts';
import type { Collection } from '../types.ts';

export function useCollections() {
  const { api } = useApp();
  return useLoad('collections', async () => {
    const { data } = await api.request<{ collections: Collection[] }>('/v1/collections');
    return data.collections;
  });
}

/** The account's collections: pick one to list its notes; create, rename and delete them. */
export function CollectionsPanel({ selected }: { selected: string | null }) {
  const { api, announce } = useApp();
  const collections = useCollections();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const chosen = collections.data?.find((collection) => collection.collection_id === selected) ?? null;

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api.request('/v1/collections', { method: 'POST', body: { name: name.trim() } });
      announce(`Collection “${name.trim()}” created`);
      setName('');
      collections.reload();
    } catch (reason) {
      setError(messageOf(reason));
    }
  };

  const rename = async (collection: Collection) => {
    const next = prompt('New name for the collection', collection.name)?.trim();
    if (!next || next === collection.name) return;
    try {
      await api.request(`/v1/collections/${collection.collection_id}`, {
        method: 'PATCH',
        body: { name: next },
      });
      collections.reload();
    } catch (reason) {
      announce(messageOf(reason));
    }
  };

  const remove = async (collection: Collection) => {
    if (!confirm(`Delete the collection “${collection.name}”? Its notes stay in your notes.`)) return;
    try {
      await api.request(`/v1/collections/${collection.collection_id}`, { method: 'DELETE' });
      announce(`Collection “${collection.name}” deleted; its notes are still here`);
      navigate(href(''));
      collections.reload();
    } catch (reason) {
      announce(messageOf(reason));
    }
  };

  return (
    <aside aria-labelledby="collections-title" class="side">
      <h2 id="collections-title">Collections</h2>
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
          </li>
        ))}
      </ul>
      {chosen && (
        <p class="actions">
          <button type="button" class="quiet" onClick={() => rename(chosen)}>
            Rename “{chosen.name}”
          </button>
          <button type="button" class="quiet danger" onClick={() => remove(chosen)}>
            Delete “{chosen.name}”
          </button>
        </p>
      )}
      <form onSubmit={create} class="inline">
        <label for="new-collection">New collection</label>
        <input
          id="new-collection"
          value={name}
          maxLength={100}
          required
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit">Create</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </aside>
  );
}
