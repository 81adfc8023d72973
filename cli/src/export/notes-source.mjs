// @ts-check

import { collectionIdOf } from '../commands/collections.mjs';
import { notePath, shortId } from '../commands/shared.mjs';
import { ApiError, JobFailedError, WaitTimeoutError } from '../errors.mjs';
import { detailOf, withoutClientRetries } from '../http.mjs';
import { info } from '../output.mjs';
import { pollUntilDone } from '../poll.mjs';

const PAGE_SIZE = 100;
const INSIGHTS_TIMEOUT_SECONDS = 600;

/**
 * @typedef {object} NoteSummary listNotes' item
 * @property {string} note_id
 * @property {string} title
 * @property {'active' | 'trashed'} state
 * @property {number} created_at
 * @property {string} transcription_status
 */

/**
 * Where the export reads notes. `quick` makes every request fail at once instead of retrying
 * (watch mode retries whole passes itself, saying so once instead of at every request).
 * @param {import('../http.mjs').ApiClient} client
 * @param {{ quick: boolean }} options
 */
export function notesSource(client, { quick }) {
  /** @type {import('../http.mjs').ApiClient} */
  const api = quick ? withoutClientRetries(client) : client;

  return {
    /**
     * The collection's ID, from its ID or name (read once).
     * @param {string} collection
     * @returns {Promise<string>}
     */
    collectionId: memoized((/** @type {string} */ collection) => collectionIdOf(api, collection, 'export')),

    /**
     * Every active note (of the collection), following next_cursor to the last page.
     * @param {string | undefined} collectionId
     * @returns {Promise<NoteSummary[]>}
     */
    async listAll(collectionId) {
      /** @type {NoteSummary[]} */
      const notes = [];
      /** @type {string | undefined} */
      let cursor;
      do {
        const { body } = await api.request('GET', '/v1/notes', {
          query: { limit: PAGE_SIZE, cursor, collection_id: collectionId },
          what: 'notes list',
        });
        const page = /** @type {{ notes: NoteSummary[], next_cursor: string | null }} */ (body);
        notes.push(...page.notes);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return notes;
    },

    /**
     * getNote, sending the ETag of the version already exported as If-None-Match.
     * @param {string} noteId
     * @param {string | null} knownEtag
     * @returns {Promise<{ status: 'changed', note: import('./markdown.mjs').Note, etag: string | null } | { status: 'unchanged' } | { status: 'deleted' }>}
     */
    async get(noteId, knownEtag) {
      const response = await api.request('GET', notePath(noteId), {
        accept: [304, 404],
        what: `notes get ${noteId}`,
        ...(knownEtag ? { headers: { 'if-none-match': knownEtag } } : {}),
      });
      if (response.status === 304) return { status: 'unchanged' };
      if (response.status === 404) return { status: 'deleted' };
      return {
        status: 'changed',
        note: /** @type {import('./markdown.mjs').Note} */ (response.body),
        etag: response.headers.get('etag'),
      };
    },

    /**
     * `--with-insights`: asks for the Insights of a note that has none and waits for them. A note
     * they cannot be made for (no speech, in the trash) or a job that fails or takes too long is
     * said on stderr and exported without them.
     * @param {string} noteId
     * @returns {Promise<boolean>} whether Insights are there now
     */
    async requestInsights(noteId) {
      const path = `${notePath(noteId)}/insights`;
      try {
        const started = await api.request('POST', path, {
          body: {},
          accept: [409],
          what: `insights generate ${noteId}`,
        });
        if (started.status === 409) {
          info(`No Insights for note ${noteId}: ${detailOf(started)}`);
          return false;
        }
        await pollUntilDone({
          label: `Insights of note ${shortId(noteId)}`,
          timeoutSeconds: INSIGHTS_TIMEOUT_SECONDS,
          checkLater: `notes insights get ${noteId}`,
          retry: `notes insights generate ${noteId}`,
          first: started,
          // Polls are paced and bounded by pollUntilDone; each read retries transient failures.
          read: (deadline) =>
            client.request('GET', path, { accept: [409], deadline, what: `insights get ${noteId}` }),
        });
        return true;
      } catch (error) {
        if (error instanceof JobFailedError || error instanceof WaitTimeoutError) {
          info(`${error.message}\nNote ${noteId} is exported without Insights.`);
          return false;
        }
        if (error instanceof ApiError && error.status !== 401 && error.status !== 403) {
          info(`${error.message}\nNote ${noteId} is exported without Insights.`);
          return false;
        }
        throw error;
      }
    },
  };
}

/**
 * @template T
 * @param {(key: string) => Promise<T>} work
 * @returns {(key: string) => Promise<T>}
 */
function memoized(work) {
  /** @type {Map<string, T>} */
  const done = new Map();
  return async (key) => {
    if (!done.has(key)) done.set(key, await work(key));
    return /** @type {T} */ (done.get(key));
  };
}

/** @typedef {ReturnType<typeof notesSource>} NotesSource */
