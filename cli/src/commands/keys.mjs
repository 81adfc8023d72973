// @ts-check
import { stringsOption } from '../args.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';

const KEY_ID = /^key_[0-9a-f]{16}$/;

/** @type {import('../types.mjs').CommandSpec} */
export const keysList = {
  name: 'keys list',
  summary: "List the account's API keys: ID, name, prefix, created, revoked (never a secret)",
  operation: 'listApiKeys',
  args: [],
  options: {},
  examples: ['notes keys list'],
  async run({ client }) {
    const { body } = await client().request('GET', '/v1/account/keys', { what: 'keys list' });
    printJson(body);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const keysCreate = {
  name: 'keys create',
  summary: 'Create a named API key; its secret is printed this once',
  operation: 'createApiKey',
  args: ['<name>'],
  options: {
    scope: {
      type: 'string',
      value: 'S',
      multiple: true,
      description:
        'What the key may do (notes:read, notes:write, notes:process, notes:delete); default: what this key may do',
    },
  },
  details:
    'Prints the new key as JSON on stdout, api_key included: the only time the secret is shown.\n' +
    'Store it at once (e.g. in a password manager); afterwards only its key_id and prefix are shown.\n' +
    'A key never holds more than the key that made it: --scope narrows it, and a scope this key lacks is refused (403).',
  examples: ["notes keys create 'Laptop CLI'", 'notes keys create Dashboard --scope notes:read'],
  async run({ positionals, values, client }) {
    const name = positionals[0] ?? '';
    if (!name.trim()) throw new UsageError('give the key a name', 'keys create');
    const scopes = stringsOption(values, 'scope');
    const { body } = await client().request('POST', '/v1/account/keys', {
      body: { name, ...(scopes.length ? { scopes } : {}) },
      what: 'keys create',
    });
    printJson(body);
    info('This is the only time the key is shown: store it now.');
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const keysRevoke = {
  name: 'keys revoke',
  summary: 'Revoke an API key by its ID: requests with it are refused from now on',
  operation: 'revokeApiKey',
  args: ['<key_id>'],
  options: {},
  details:
    "<key_id> is the key's ID from 'notes keys list' (key_...), never the key itself. Revoking the\n" +
    'key this CLI is configured with ends its access too. Prints nothing on stdout (HTTP 204).',
  examples: ['notes keys revoke key_0123456789abcdef'],
  async run({ positionals, client }) {
    const keyId = positionals[0] ?? '';
    if (!KEY_ID.test(keyId)) {
      throw new UsageError(
        "give the key's ID (key_ and 16 hex digits, from 'notes keys list')",
        'keys revoke',
      );
    }
    await client().request('DELETE', `/v1/account/keys/${keyId}`, { what: `keys revoke ${keyId}` });
    info(`Revoked API key ${keyId}.`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const keysGroup = {
  name: 'keys',
  summary: "Manage the account's API keys: list, create (shown once), revoke.",
  commands: [keysList, keysCreate, keysRevoke],
};
