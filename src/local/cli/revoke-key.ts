/**
 * `npm run key:revoke -- --account <account_id> --key <key_id>`: revokes an API key in the local data
 * directory; requests with it then answer 401, from the very next one: a running runtime is asked to
 * forget the keys it remembers (src/local/key-revocations.ts). Every session the key signed in (web
 * app, MCP clients, browsers) ends with it. Key IDs are shown by getCurrentAccount.
 */
import { parseArgs } from 'node:util';
import { API_KEY_CACHE_SECONDS } from '../../domain/api-key-cache.ts';
import { askRuntimeToForgetKeys } from '../key-revocations.ts';
import { localDataDir, runningRuntime, withLocalAccountStore } from './local-account-store.ts';

const { values } = parseArgs({ options: { account: { type: 'string' }, key: { type: 'string' } } });
if (!values.account || !values.key) {
  console.error('usage: npm run key:revoke -- --account <account_id> --key <key_id>');
  process.exit(2);
}
const { account, key } = values;
const dataDir = localDataDir();
const revoked = await withLocalAccountStore(dataDir, async (store, sessions) => {
  const now = Date.now();
  if (!(await store.revokeApiKey(account, key, now))) return false;
  await sessions.endSessionsOfKey(account, key, now);
  return true;
});
if (!revoked) {
  console.error(`No key ${key} in account ${account}`);
  process.exit(1);
}
const running = await runningRuntime(dataDir);
if (running && !(await askRuntimeToForgetKeys(dataDir))) {
  console.error(
    `The running service (pid ${running.pid}) did not answer: it refuses the key within ${API_KEY_CACHE_SECONDS} s`,
  );
}
process.stdout.write(`${JSON.stringify({ account_id: account, key_id: key, revoked: true })}\n`);
