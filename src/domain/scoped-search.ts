import type { IndexPartition, SearchResult } from '../ports/search-index.ts';
import type { DomainDeps } from './deps.ts';

/** A scope of up to this many notes is scored note by note straight away (a few reads per note and term). */
const NOTES_SCORED_ONE_BY_ONE = 100;

export interface ScopedSearch {
  /** The notes the search is limited to (a collection's, the listed ones), or null for the whole account. */
  scope: ReadonlySet<string> | null;
  /** How many hits the caller wants at most. */
  limit: number;
  /** A large scope is scored exactly unless the account's best candidates hold at least this many of its notes. */
  enough: number;
  partitions?: readonly IndexPartition[];
}

/**
 * The best notes for the terms, within the scope when there is one. A large scope (a big collection)
 * first takes the account's best `limit` candidates and keeps those in it: cheap, and right when it
 * leaves `enough` of them or the account has no more candidates than that. Otherwise notes outside
 * the scope outrank the ones inside, so the scope's notes are scored exactly instead (the index
 * bounds what that reads), and the notes in it that match are found whatever ranks above them.
 */
export async function searchWithin(
  deps: DomainDeps,
  accountId: string,
  terms: string[],
  request: ScopedSearch,
): Promise<SearchResult> {
  const { scope, limit, partitions } = request;
  const exactly = (noteIds: string[]) =>
    deps.search.search(accountId, terms, { limit, noteIds, ...(partitions ? { partitions } : {}) });
  if (scope && scope.size <= NOTES_SCORED_ONE_BY_ONE) return exactly([...scope]);
  const wide = await deps.search.search(accountId, terms, { limit, ...(partitions ? { partitions } : {}) });
  if (!scope) return wide;
  const inScope = wide.hits.filter((hit) => scope.has(hit.note_id));
  // Fewer hits than asked for means the account had no more candidates: nothing in scope was missed.
  if (inScope.length >= request.enough || wide.hits.length < limit) return { ...wide, hits: inScope };
  return exactly([...scope]);
}
