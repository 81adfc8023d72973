// @ts-check
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';

const SESSION_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|browser_[0-9a-f]{24})$/;

/** @type {import('../types.mjs').CommandSpec} */
export const sessionsList = {
  name: 'sessions list',
  summary: 'List what is signed in to the account: apps (web app tabs, MCP clients) and browsers',
  operation: 'listSessions',
  args: [],
  options: {},
  details:
    'Prints {"sessions":[...]} as JSON: each session\'s ID, kind (app or browser), client, scopes,\n' +
    'created_at, last_used_at, expires_at and the API key that signed it in (signed_in_with).',
  examples: ['notes sessions list'],
  async run({ client }) {
    const { body } = await client().request('GET', '/v1/account/sessions', { what: 'sessions list' });
    printJson(body);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const sessionsEnd = {
  name: 'sessions end',
  summary: 'End one session by its ID, or every session with --all: they must sign in again',
  operation: 'endSession',
  args: ['[session_id]'],
  options: {
    all: { type: 'boolean', description: 'End every session of the account (endOtherSessions)' },
  },
  details:
    "<session_id> comes from 'notes sessions list'. Ending a browser's session also ends the web app\n" +
    'tabs it signed in. With --all, prints {"ended":N,"left":M} (left: sessions holding a permission\n' +
    'this key lacks). Revoking a key (notes keys revoke) ends every session it signed in.',
  examples: ['notes sessions end browser_0123456789abcdef01234567', 'notes sessions end --all'],
  async run({ positionals, values, client }) {
    const sessionId = positionals[0];
    if (values.all) {
      if (sessionId) throw new UsageError('give a session ID or --all, not both', 'sessions end');
      const { body } = await client().request('DELETE', '/v1/account/sessions', {
        what: 'sessions end --all',
      });
      printJson(body);
      const ended = /** @type {{ ended: number, left: number }} */ (body);
      info(`Ended ${ended.ended} session${ended.ended === 1 ? '' : 's'}.`);
      return;
    }
    if (!sessionId || !SESSION_ID.test(sessionId)) {
      throw new UsageError("give the session's ID (from 'notes sessions list'), or --all", 'sessions end');
    }
    await client().request('DELETE', `/v1/account/sessions/${sessionId}`, {
      what: `sessions end ${sessionId}`,
    });
    info(`Ended session ${sessionId}.`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const sessionsGroup = {
  name: 'sessions',
  summary: 'See and end what is signed in to the account: list, end (one or --all).',
  commands: [sessionsList, sessionsEnd],
};
