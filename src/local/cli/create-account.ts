/**
 * `npm run account:create -- --name <name> [--aws]`: creates an account and prints
 * `{ "account_id", "key_id", "api_key" }` as JSON, the key only this once.
 * Without `--aws`: in the local data directory (NOTES_DATA_DIR). With `--aws`: in a deployed stack's
 * table (NOTES_TABLE_NAME, AWS_REGION, and the operator's AWS credentials from the usual chain).
 */
import { parseArgs } from 'node:util';
import { awsClientConfig } from '../../adapters/aws-client-config.ts';
import { DynamoAccountStore } from '../../adapters/dynamodb/account-store.ts';
import { createDocumentClient } from '../../adapters/dynamodb/client.ts';
import { createAccount } from '../../domain/accounts.ts';
import { localDataDir, withLocalAccountStore } from './local-account-store.ts';

const { values } = parseArgs({
  options: { name: { type: 'string' }, aws: { type: 'boolean', default: false } },
});
const name = values.name?.trim();
if (!name) {
  console.error('usage: npm run account:create -- --name <name> [--aws]');
  process.exit(2);
}

const issued = values.aws
  ? await createAccount(deployedStore(), name)
  : await withLocalAccountStore(localDataDir(), (store) => createAccount(store, name));
process.stdout.write(
  `${JSON.stringify({ account_id: issued.account.account_id, key_id: issued.key_id, api_key: issued.api_key })}\n`,
);

function deployedStore(): DynamoAccountStore {
  const table = process.env.NOTES_TABLE_NAME;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!table || !region) {
    console.error('--aws needs NOTES_TABLE_NAME (the stack output TableName) and AWS_REGION');
    process.exit(2);
  }
  return new DynamoAccountStore(createDocumentClient(awsClientConfig(region)), table);
}
