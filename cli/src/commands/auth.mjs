// @ts-check
import { info, printJson } from '../output.mjs';

/**
 * @typedef {object} Account
 * @property {string} account_id
 * @property {string} name
 * @property {{ key_id?: string }} [api_key]
 */

/** @type {import('../types.mjs').CommandSpec} */
export const authStatus = {
  name: 'auth status',
  summary: 'Check the API key: print the base URL, account and key ID (never the key)',
  operation: 'getCurrentAccount',
  args: [],
  options: {},
  examples: ['notes auth status'],
  async run({ client }) {
    const api = client();
    const { body } = await api.request('GET', '/v1/account', { what: 'auth status' });
    const account = /** @type {Account} */ (body);
    const keyId = account.api_key?.key_id ?? null;
    printJson({ base_url: api.baseUrl, account_id: account.account_id, name: account.name, key_id: keyId });
    info(`Authenticated at ${api.baseUrl} as '${account.name}' (${account.account_id}), key ${keyId}.`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const authGroup = {
  name: 'auth',
  summary: 'Check the configured API key (NOTES_API_KEY).',
  commands: [authStatus],
};
