import { useState } from 'preact/hooks';
import { useAction } from '../action.ts';
import { ActionFeedback } from '../components/action-feedback.tsx';
import { Skeleton } from '../components/skeleton.tsx';
import { useApp } from '../context.ts';
import { clock, when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { href, navigate } from '../router.ts';
import type { NoteSummary } from '../types.ts';

interface Highlight {
  start: number;
  end: number;
}
interface Match {
  start_ms: number;
  end_ms: number;
  speaker: string;
  snippet: string;
  highlights: Highlight[];
}
interface SearchHit {
  note: NoteSummary;
  /** Where the title matched (offsets into it). */
  title_highlights: Highlight[];
  /** The segments that matched, with the matching words as offsets into each snippet. */
  segments: Match[];
}
interface SearchPage_ {
  results: SearchHit[];
  next_cursor: string | null;
}

const EMPTY_PAGES_FOLLOWED = 5;

/** Marks the highlighted ranges with <mark>: built from offsets, so no markup from the server is ever injected. */
function Highlighted({ text, highlights }: { text: string; highlights: Highlight[] }) {
  const parts = [];
  let at = 0;
  for (const { start, end } of [...highlights].sort((a, b) => a.start - b.start)) {
    if (start < at) continue;
    parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(text.slice(at));
  return <span>{parts}</span>;
}

export function SearchPage({ query, includeTrashed }: { query: string; includeTrashed: boolean }) {
  const { api } = useApp();
  const [more, setMore] = useState<{ results: SearchHit[]; cursor: string | null } | null>(null);
  const first = useLoad(`${query}:${includeTrashed}`, async () => {
    setMore(null);
    // A page may come back empty while next_cursor leads on (quoted phrases are checked per page):
    // follow a few pages before saying there is nothing.
    let page: SearchPage_ = { results: [], next_cursor: null };
    for (let turn = 0; turn < EMPTY_PAGES_FOLLOWED; turn++) {
      const cursor: string | undefined = page.next_cursor ?? undefined;
      page = (
        await api.request<SearchPage_>('/v1/search', {
          query: { q: query, include_trashed: includeTrashed || undefined, cursor },
        })
      ).data;
      if (page.results.length > 0 || !page.next_cursor) break;
    }
    return page;
  });
  const results = [...(first.data?.results ?? []), ...(more?.results ?? [])];
  const cursor = more ? more.cursor : (first.data?.next_cursor ?? null);

  const next = useAction(async () => {
    if (!cursor) return;
    const { data } = await api.request<SearchPage_>('/v1/search', {
      query: { q: query, include_trashed: includeTrashed || undefined, cursor },
    });
    setMore({ results: [...(more?.results ?? []), ...data.results], cursor: data.next_cursor });
  });

  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search: “{query}”</h1>
      <label class="check">
        <input
          type="checkbox"
          checked={includeTrashed}
          onChange={(event) =>
            navigate(href('search', { q: query, trashed: event.currentTarget.checked ? '1' : undefined }))
          }
        />{' '}
        Include the trash
      </label>
      {first.error && (
        <p role="alert" class="error">
          {first.error}
        </p>
      )}
      {first.loading && !first.data && <Skeleton label="Searching…" />}
      {first.data && results.length === 0 && !cursor && <p class="empty">No processed note mentions that.</p>}
      <ol class="results" aria-busy={first.loading}>
        {results.map((hit) => (
          <li key={hit.note.note_id}>
            <a href={href(`notes/${hit.note.note_id}`)} class="title">
              <Highlighted text={hit.note.title} highlights={hit.title_highlights} />
            </a>{' '}
            <span class="meta">
              {when(hit.note.created_at)}
              {hit.note.state === 'trashed' && ' · in the trash'}
            </span>
            <ul class="plain">
              {hit.segments.map((match) => (
                <li key={match.start_ms}>
                  <a href={href(`notes/${hit.note.note_id}`, { t: match.start_ms })}>
                    {clock(match.start_ms)}
                  </a>{' '}
                  <Highlighted text={match.snippet} highlights={match.highlights} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {cursor && (
        <p>
          <button type="button" onClick={() => void next.run()} disabled={next.pending}>
            {next.pending ? 'Loading more…' : 'More results'}
          </button>
          <ActionFeedback action={next} />
        </p>
      )}
    </section>
  );
}
