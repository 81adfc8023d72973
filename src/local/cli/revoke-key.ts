/**
 * `npm run key:revoke -- --account <account_id> --key <key_id>`: revokes an API key in the local data
 * directory; requests with it then answer 401. Key IDs are shown by getCurrentAccount.
 */
import { parseArgs } from 'node:util';
import { localDataDir, withLocalAccountStore } from './local-account-store.ts';

const { values } = parseArgs({ options: { account: { type: 'string' }, key: { type: 'string' } } });
if (!values.account || !values.key) {
  console.error('usage: npm run key:revoke -- --account <account_id> --key <key_id>');
  process.exit(2);
}
const { account, key } = values;
const revoked = await withLocalAccountStore(localDataDir(), (store) =>
  store.revokeApiKey(account, key, Date.now()),
);
if (!revoked) {
  console.error(`No key ${key} in account ${account}`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ account_id: account, key_id: key, revoked: true })}\n`);
