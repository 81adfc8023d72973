// @ts-check
import { flag, integerOption, stringOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';
import { collectionIdOf } from './collections.mjs';

/**
 * @typedef {{ start: number, end: number }} Highlight
 * @typedef {{ start_ms: number, speaker: string, snippet: string, highlights: Highlight[] }} Segment
 * @typedef {{ note: { note_id: string, title: string, state: string }, score: number, segments: Segment[] }} Result
 */

/** @type {import('../types.mjs').CommandSpec} */
export const search = {
  name: 'search',
  summary: 'Find notes by words said in them or in their titles (best first, with timestamps)',
  operation: 'searchNotes',
  args: ['<query...>'],
  options: {
    limit: { type: 'string', value: 'N', description: 'Results per page, 1 to 50 (default 10)' },
    trashed: { type: 'boolean', description: 'Also search notes in the trash' },
    collection: {
      type: 'string',
      value: 'C',
      description: 'Only search the notes in this collection (its ID or name)',
    },
    cursor: {
      type: 'string',
      value: 'C',
      description: 'Start at this page: next_cursor of the previous page (same query)',
    },
  },
  details:
    'Words after the query are joined with spaces. Put words in double quotes to require them next to each other (in a shell: \'"cloud budget"\'). The JSON response goes to stdout; a readable list (score, note ID, time, snippet with the matches in [brackets]) to stderr.',
  examples: [
    'notes search budget review',
    'notes search \'"cloud budget"\' --limit 5',
    'notes search interviews --trashed --collection Hiring',
  ],
  async run({ positionals, values, client }) {
    const q = positionals.join(' ').trim();
    if (!q) throw new UsageError('the query must not be empty', 'search');
    const limit = integerOption(values, 'limit', 1, 50, 'search');
    const cursor = stringOption(values, 'cursor');
    if (cursor === '') throw new UsageError('--cursor must not be empty', 'search');
    const api = client();
    const collection = stringOption(values, 'collection');
    const collectionId =
      collection === undefined ? undefined : await collectionIdOf(api, collection, 'search');
    const { body } = await api.request('GET', '/v1/search', {
      query: {
        q,
        limit,
        cursor,
        include_trashed: flag(values, 'trashed') ? 'true' : undefined,
        collection_id: collectionId,
      },
      what: 'search',
    });
    printJson(body);
    const page = /** @type {{ results: Result[], next_cursor: string | null }} */ (body);
    if (page.results.length === 0) info('No note matches.');
    for (const result of page.results) {
      const trashed = result.note.state === 'trashed' ? ' (trashed)' : '';
      info(`${result.score.toFixed(2)}  ${result.note.note_id}  ${result.note.title}${trashed}`);
      for (const segment of result.segments) {
        info(`      ${clock(segment.start_ms)}  ${segment.speaker}: ${marked(segment)}`);
      }
    }
    if (page.next_cursor) info(`More results: add --cursor ${page.next_cursor}`);
  },
};

/**
 * The snippet with its highlights in [brackets] (a terminal, not a page: no markup to inject).
 * @param {Segment} segment
 */
function marked(segment) {
  let out = '';
  let at = 0;
  for (const { start, end } of segment.highlights) {
    out += `${segment.snippet.slice(at, start)}[${segment.snippet.slice(start, end)}]`;
    at = end;
  }
  return out + segment.snippet.slice(at);
}

/** @param {number} ms */
function clock(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
