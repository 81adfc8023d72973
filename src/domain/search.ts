import type { IndexPartition, SearchHit } from '../ports/search-index.ts';
import { requireCollection } from './collections.ts';
import { forEachLimited } from './concurrency.ts';
import type { DomainDeps } from './deps.ts';
import { BadRequestError } from './errors.ts';
import { scorePassages } from './passages.ts';
import { type ProcessedNote, processedNotes } from './processed-notes.ts';
import { searchWithin } from './scoped-search.ts';
import { decodeSearchCursor, encodeSearchCursor, isAfter, type SearchCursorScope } from './search-cursor.ts';
import { type Highlight, matchesIn, parseQuery, type SearchQuery, snippetOf } from './search-query.ts';
import { readTranscriptionOfJob } from './stored-results.ts';
import type { ConversationSegment } from './transcript.ts';
import { withSpeakerNames } from './transcript-exports.ts';
import { type NoteSummaryView, noteSummaryView } from './views.ts';

export interface SearchRequest {
  q: string;
  limit: number;
  cursor?: string | undefined;
  include_trashed: boolean;
  collection_id?: string | undefined;
}

export interface MatchingSegment {
  start_ms: number;
  end_ms: number;
  /** The name the user gave the speaker, else the label. */
  speaker: string;
  /** The stable label (`Speaker 1`). */
  speaker_label: string;
  /** The segment's text, cut around the match when long ("…" marks what was left out). */
  snippet: string;
  highlights: Highlight[];
}

export interface SearchResultView {
  note: NoteSummaryView;
  score: number;
  title_highlights: Highlight[];
  /** The best matching segments, best first. */
  segments: MatchingSegment[];
}

export interface SearchPage {
  results: SearchResultView[];
  next_cursor: string | null;
}

/** The most notes one query can page through: the index ranks this many candidates per query. */
export const MAX_SEARCH_RESULTS = 100;
const SEGMENTS_PER_RESULT = 3;
/** A phrase query reads at most this many pages' worth of transcripts per page it answers. */
const PHRASE_READ_ROUNDS = 3;
/**
 * Transcript a page reads at most, in indexed terms (about 150 bytes of stored transcript each, word
 * timings included: ~15 MB), so 3 rounds of 50 two-hour notes cannot read 180 MB for one page. A
 * page reads at least one note; one cut short says so with its cursor.
 */
const TERMS_READ_PER_PAGE = 100_000;
const READ_CONCURRENCY = 8;

/**
 * Full-text search over the account's processed notes (title and transcript), on the index Ask keeps:
 * BM25 over the same terms, trashed notes from their own partition only when asked. Each page re-checks
 * its notes (a lagging index never returns a trashed or deleted note) and reads only the transcripts
 * of its candidates, to find the matching segments and confirm quoted phrases.
 */
export async function searchNotes(
  deps: DomainDeps,
  accountId: string,
  request: SearchRequest,
): Promise<SearchPage> {
  const query = parseQuery(request.q);
  if (query.terms.length === 0) {
    throw new BadRequestError(
      'q has no words to search for: common words (the, and, of …) and single letters are not indexed',
    );
  }
  const scope: SearchCursorScope = { accountId, ...request };
  const position = request.cursor ? decodeSearchCursor(request.cursor, scope) : null;
  const states: IndexPartition[] = request.include_trashed ? ['active', 'trashed'] : ['active'];
  const inCollection = request.collection_id
    ? await collectionNotes(deps, accountId, request.collection_id)
    : null;
  if (inCollection?.size === 0) return { results: [], next_cursor: null };

  // Every page ranks the same candidates, so a collection's search must choose its path the same way each time.
  const { hits, idf } = await searchWithin(deps, accountId, query.terms, {
    scope: inCollection,
    limit: MAX_SEARCH_RESULTS,
    enough: MAX_SEARCH_RESULTS,
    partitions: states,
  });
  // Phrases need every one of their terms in the note; the transcript read confirms them adjacent.
  const required = new Set(query.phrases.flat());
  let rest = hits.filter(
    (hit) => [...required].every((term) => hit.terms.includes(term)) && (!position || isAfter(hit, position)),
  );

  const results: SearchResultView[] = [];
  let last: SearchHit | undefined;
  const rounds = query.phrases.length > 0 ? PHRASE_READ_ROUNDS : 1;
  let budget = TERMS_READ_PER_PAGE;
  for (let round = 0; round < rounds && results.length < request.limit && rest.length > 0; round++) {
    const batch = withinBudget(rest.slice(0, request.limit - results.length), budget, round === 0);
    if (batch.length === 0) break;
    budget -= batch.reduce((sum, hit) => sum + hit.length, 0);
    rest = rest.slice(batch.length);
    const notes = await processedNotes(
      deps,
      accountId,
      batch.map((hit) => hit.note_id),
      states,
    );
    const shown = await resultsFor(deps, accountId, batch, notes, query, idf);
    results.push(...shown.filter((result) => result !== null));
    last = batch.at(-1);
  }
  return {
    results,
    next_cursor: rest.length > 0 && last ? encodeSearchCursor(scope, last) : null,
  };
}

/** The first hits whose transcripts fit the budget; on a page's first round at least one (it must move on). */
function withinBudget(hits: SearchHit[], budget: number, first: boolean): SearchHit[] {
  let left = budget;
  let count = 0;
  for (const hit of hits) {
    if ((count > 0 || !first) && hit.length > left) break;
    left -= hit.length;
    count++;
  }
  return hits.slice(0, count);
}

async function collectionNotes(
  deps: DomainDeps,
  accountId: string,
  collectionId: string,
): Promise<Set<string>> {
  await requireCollection(deps, accountId, collectionId);
  return new Set(await deps.collections.allNotesIn(accountId, collectionId));
}

/** One result per hit, in order; null where the note is gone, unreadable or lacks a quoted phrase. */
async function resultsFor(
  deps: DomainDeps,
  accountId: string,
  hits: SearchHit[],
  notes: Map<string, ProcessedNote>,
  query: SearchQuery,
  idf: ReadonlyMap<string, number>,
): Promise<(SearchResultView | null)[]> {
  const results: (SearchResultView | null)[] = hits.map(() => null);
  await forEachLimited(hits, READ_CONCURRENCY, async (hit, index) => {
    const processed = notes.get(hit.note_id);
    if (!processed) return;
    const { note, job } = processed;
    const transcription = await readTranscriptionOfJob(deps, accountId, hit.note_id, job);
    if (transcription === 'unreadable') return;
    const { conversation_segments } = withSpeakerNames(transcription, note.speaker_names);
    const title = matchesIn(note.title, query);
    const segments = matchingSegments(conversation_segments, query, idf);
    // Each quoted phrase must stand in the title or in one segment.
    const found = new Set([...title.phrases, ...segments.flatMap((segment) => [...segment.phrases])]);
    if (found.size < query.phrases.length) return;
    results[index] = {
      // Processed notes only: their transcription is completed by definition.
      note: { ...noteSummaryView(note, null), transcription_status: 'completed' },
      score: Number(hit.score.toFixed(6)),
      title_highlights: title.highlights,
      segments: segments.slice(0, SEGMENTS_PER_RESULT).map((segment) => segment.view),
    };
  });
  return results;
}

/**
 * Segments with at least one query term, those holding the most quoted phrases first, then by BM25
 * (the index's idf, segment lengths compared within the note).
 */
function matchingSegments(
  segments: ConversationSegment[],
  query: SearchQuery,
  idf: ReadonlyMap<string, number>,
): { view: MatchingSegment; phrases: Set<number> }[] {
  return scorePassages(segments, query.terms, idf)
    .filter(({ score }) => score > 0)
    .map(({ passage, score }) => {
      const { highlights, phrases } = matchesIn(passage.text, query);
      const snippet = snippetOf(passage.text, highlights);
      const view = {
        start_ms: passage.start_ms,
        end_ms: passage.end_ms,
        speaker: passage.speaker,
        speaker_label: passage.speaker_label ?? passage.speaker,
        snippet: snippet.text,
        highlights: snippet.highlights,
      };
      return { view, phrases, score };
    })
    .sort(
      (a, b) => b.phrases.size - a.phrases.size || b.score - a.score || a.view.start_ms - b.view.start_ms,
    );
}
