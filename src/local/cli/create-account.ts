/**
 * `npm run account:create -- --name <name>`: creates an account in the local data directory
 * (NOTES_DATA_DIR) and prints `{ "account_id", "key_id", "api_key" }` as JSON, the key only this once.
 */
import { parseArgs } from 'node:util';
import { createAccount } from '../../domain/accounts.ts';
import { localDataDir, withLocalAccountStore } from './local-account-store.ts';

const { values } = parseArgs({ options: { name: { type: 'string' } } });
const name = values.name?.trim();
if (!name) {
  console.error('usage: npm run account:create -- --name <name>');
  process.exit(2);
}
const issued = await withLocalAccountStore(localDataDir(), (store) => createAccount(store, name));
process.stdout.write(
  `${JSON.stringify({ account_id: issued.account.account_id, key_id: issued.key_id, api_key: issued.api_key })}\n`,
);
