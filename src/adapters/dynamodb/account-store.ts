import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Account, ApiKeyRecord } from '../../domain/account.ts';
import type { AccountStore } from '../../ports/account-store.ts';
import { queryAllItems, withoutKeys, writeIf } from './client.ts';
import { GSI1, keys } from './keys.ts';

export class DynamoAccountStore implements AccountStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createAccount(account: Account): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.account(account.account_id), ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.account(accountId) }),
    );
    return Item ? withoutKeys<Account>(Item) : null;
  }

  async putApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.apiKey(key.key_hash), ...keys.apiKeyIndex(key.account_id, key.key_id), ...key },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.apiKey(keyHash) }),
    );
    return Item ? withoutKeys<ApiKeyRecord>(Item) : null;
  }

  async listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const { gsi1pk } = keys.apiKeyIndex(accountId, '');
    const records: ApiKeyRecord[] = [];
    for await (const record of queryAllItems<ApiKeyRecord>(this.db, {
      TableName: this.tableName,
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': gsi1pk },
    })) {
      records.push(record);
    }
    return records;
  }

  async revokeApiKey(accountId: string, keyId: string, now: number, keyHash?: string): Promise<boolean> {
    const key = keyHash === undefined ? await this.findApiKey(accountId, keyId) : keys.apiKey(keyHash);
    if (!key) return false;
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        // revoked_at is null until revoked; the condition keeps the first revocation time, and a hash
        // given by the caller only ever reaches a key of this account.
        UpdateExpression: 'SET revoked_at = :now',
        ConditionExpression: 'revoked_at = :null AND account_id = :account AND key_id = :key',
        ExpressionAttributeValues: { ':now': now, ':null': null, ':account': accountId, ':key': keyId },
      }),
    );
    return true;
  }

  private async findApiKey(accountId: string, keyId: string): Promise<{ pk: string; sk: string } | null> {
    const index = keys.apiKeyIndex(accountId, keyId);
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
      }),
    );
    const record = Items[0];
    return record ? { pk: String(record.pk), sk: String(record.sk) } : null;
  }
}
