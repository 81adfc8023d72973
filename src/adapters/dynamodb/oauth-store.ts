import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { McpScope } from '../../domain/scopes.ts';
import type {
  AccountBinding,
  AuthorizationCodeRecord,
  GrantRecord,
  IdentityLink,
  OAuthClient,
  OAuthStore,
  PendingAuthorization,
  Redemption,
  RefreshTokenRecord,
  SignInSessionRecord,
} from '../../oauth/store.ts';
import { isConditionalCheckFailed, queryAllItems, withoutKeys, writeIf } from './client.ts';
import { keys } from './keys.ts';

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The authorization server's records on the single table. Single-use records (codes, refresh tokens,
 * pending requests) are consumed with conditional writes, so two concurrent uses cannot both succeed.
 */
export class DynamoOAuthStore implements OAuthStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putClient(client: OAuthClient): Promise<void> {
    await this.putNew(keys.oauthClient(client.client_id), client);
  }

  async countRegistration(source: string, windowStartS: number, expiresAtS: number): Promise<number> {
    // One atomic ADD: concurrent registrations from one source each see their own count.
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthRegistrations(source, windowStartS),
        UpdateExpression: 'ADD registrations :one SET expires_at_s = :expires',
        ExpressionAttributeValues: { ':one': 1, ':expires': expiresAtS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.registrations ?? 1);
  }

  async getClient(clientId: string): Promise<OAuthClient | null> {
    return this.get<OAuthClient>(keys.oauthClient(clientId));
  }

  async putPendingAuthorization(request: PendingAuthorization): Promise<void> {
    await this.putNew(keys.oauthRequest(request.request_id), request);
  }

  async getPendingAuthorization(requestId: string, now: number): Promise<PendingAuthorization | null> {
    const request = await this.get<PendingAuthorization>(keys.oauthRequest(requestId));
    return request && request.expires_at_s > seconds(now) ? request : null;
  }

  async bindAccount(requestId: string, binding: AccountBinding, now: number): Promise<boolean> {
    const values: Record<string, unknown> = {
      ':account': binding.accountId,
      ':csrf': binding.csrfHash,
      ':null': null,
      ':now': seconds(now),
      ':step_up': binding.stepUp,
      ':ceiling': binding.ceiling,
      ':credential': binding.credential,
      ':sign_in': binding.signInId,
      ':allowed_before': binding.allowedBefore,
    };
    let condition = 'attribute_exists(pk) AND account_id = :null AND expires_at_s > :now';
    if (binding.expectedCsrfHash !== null) {
      condition += ' AND csrf_hash = :expected';
      values[':expected'] = binding.expectedCsrfHash;
    }
    return writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthRequest(requestId),
        UpdateExpression:
          'SET account_id = :account, csrf_hash = :csrf, step_up = :step_up, ceiling = :ceiling, credential = :credential, sign_in_id = :sign_in, allowed_before = :allowed_before',
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async takePendingAuthorization(
    requestId: string,
    csrfHash: string,
    signedIn: boolean,
    now: number,
  ): Promise<PendingAuthorization | null> {
    const values: Record<string, unknown> = { ':csrf': csrfHash, ':now': seconds(now) };
    let condition = 'attribute_exists(pk) AND csrf_hash = :csrf AND expires_at_s > :now';
    if (signedIn) {
      condition += ' AND account_id <> :null';
      values[':null'] = null;
    }
    try {
      const { Attributes } = await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.oauthRequest(requestId),
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes ? withoutKeys<PendingAuthorization>(Attributes) : null;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return null;
      throw error;
    }
  }

  async putGrant(grant: GrantRecord): Promise<void> {
    await this.putNew(keys.oauthGrant(grant.account_id, grant.grant_id), grant);
  }

  async getGrant(accountId: string, grantId: string): Promise<GrantRecord | null> {
    return this.get<GrantRecord>(keys.oauthGrant(accountId, grantId));
  }

  async revokeGrant(accountId: string, grantId: string, now: number): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthGrant(accountId, grantId),
        // The first revocation time stays.
        UpdateExpression: 'SET revoked_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
        ExpressionAttributeValues: { ':now': now, ':null': null },
      }),
    );
  }

  async markGrantUsed(accountId: string, grantId: string, now: number): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthGrant(accountId, grantId),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  }

  async accountSessions(
    accountId: string,
  ): Promise<{ grants: GrantRecord[]; signIns: SignInSessionRecord[] }> {
    const { pk, skPrefix } = keys.oauthSessionsPrefix(accountId);
    const grants: GrantRecord[] = [];
    const signIns: SignInSessionRecord[] = [];
    for await (const item of queryAllItems<GrantRecord | SignInSessionRecord>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    })) {
      if ('grant_id' in item) grants.push(item);
      else signIns.push(item);
    }
    return { grants, signIns };
  }

  async putSignIn(session: SignInSessionRecord): Promise<void> {
    await this.putNew(keys.oauthSignIn(session.account_id, session.sign_in_id), session);
  }

  async getSignIn(accountId: string, signInId: string): Promise<SignInSessionRecord | null> {
    return this.get<SignInSessionRecord>(keys.oauthSignIn(accountId, signInId));
  }

  async touchSignIn(accountId: string, signInId: string, now: number, idleExpiresAtS: number): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthSignIn(accountId, signInId),
        UpdateExpression: 'SET last_used_at = :now, idle_expires_at_s = :idle',
        ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
        ExpressionAttributeValues: { ':now': now, ':idle': idleExpiresAtS, ':null': null },
      }),
    );
  }

  async endSignIn(accountId: string, signInId: string, now: number): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthSignIn(accountId, signInId),
        UpdateExpression: 'SET revoked_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
        ExpressionAttributeValues: { ':now': now, ':null': null },
      }),
    );
  }

  async recordStepUp(accountId: string, grantId: string, scopes: McpScope[], untilS: number): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthGrant(accountId, grantId),
        UpdateExpression: 'SET step_up_scopes = :scopes, step_up_until_s = :until',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':scopes': scopes, ':until': untilS },
      }),
    );
  }

  /** Reads only the account's grants (by sort-key prefix): one per consent, until it expires. */
  async grantsAwaitingStepUp(accountId: string, clientId: string, now: number): Promise<GrantRecord[]> {
    const { pk, skPrefix } = keys.oauthGrantsPrefix(accountId);
    const grants: GrantRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression:
            'client_id = :client AND attribute_exists(step_up_scopes) AND step_up_until_s > :now AND revoked_at = :null AND expires_at_s > :now',
          ExpressionAttributeValues: {
            ':pk': pk,
            ':prefix': skPrefix,
            ':client': clientId,
            ':null': null,
            ':now': seconds(now),
          },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) grants.push(withoutKeys<GrantRecord>(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return grants;
  }

  async decideStepUp(
    accountId: string,
    grantId: string,
    declined: McpScope[],
    untilS: number,
  ): Promise<void> {
    await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthGrant(accountId, grantId),
        UpdateExpression:
          'SET step_up_declined = :declined, step_up_declined_until_s = :until REMOVE step_up_scopes, step_up_until_s',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':declined': declined, ':until': untilS },
      }),
    );
  }

  async settleStepUp(accountId: string, grantId: string, scopes?: McpScope[]): Promise<boolean> {
    const values: Record<string, unknown> = { ':null': null };
    let update = 'REMOVE step_up_scopes, step_up_until_s';
    if (scopes) {
      update = `SET scopes = :scopes ${update}`;
      values[':scopes'] = scopes;
    }
    return writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthGrant(accountId, grantId),
        UpdateExpression: update,
        ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
        ExpressionAttributeValues: values,
      }),
    );
  }

  async putCode(code: AuthorizationCodeRecord): Promise<void> {
    await this.putNew(keys.oauthCode(code.code_hash), code);
  }

  async redeemCode(codeHash: string, now: number): Promise<Redemption<AuthorizationCodeRecord>> {
    return this.markUsed<AuthorizationCodeRecord>(keys.oauthCode(codeHash), 'used_at', now);
  }

  async markCodeIssued(codeHash: string, now: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.oauthCode(codeHash),
        UpdateExpression: 'SET issued_at = :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  }

  async putRefreshToken(token: RefreshTokenRecord): Promise<void> {
    await this.putNew(keys.oauthRefreshToken(token.token_hash), token);
  }

  async getRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    return this.get<RefreshTokenRecord>(keys.oauthRefreshToken(tokenHash));
  }

  async rotateRefreshToken(tokenHash: string, now: number): Promise<Redemption<RefreshTokenRecord>> {
    return this.markUsed<RefreshTokenRecord>(keys.oauthRefreshToken(tokenHash), 'rotated_at', now);
  }

  async getIdentity(issuer: string, subject: string): Promise<IdentityLink | null> {
    return this.get<IdentityLink>(keys.identity(issuer, subject));
  }

  async linkIdentity(link: IdentityLink): Promise<IdentityLink> {
    try {
      await this.putNew(keys.identity(link.issuer, link.subject), link);
      return link;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const existing = await this.getIdentity(link.issuer, link.subject);
      if (!existing) throw error;
      return existing;
    }
  }

  private async putNew(key: { pk: string; sk: string }, record: object): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...key, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  private async get<T>(key: { pk: string; sk: string }): Promise<T | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item ? withoutKeys<T>(Item) : null;
  }

  /** Sets `attribute` to now if it is still null: the one atomic step of a single-use record. */
  private async markUsed<T>(
    key: { pk: string; sk: string },
    attribute: 'used_at' | 'rotated_at',
    now: number,
  ): Promise<Redemption<T>> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET #used = :now',
          ConditionExpression: 'attribute_exists(pk) AND #used = :null',
          ExpressionAttributeNames: { '#used': attribute },
          ExpressionAttributeValues: { ':now': now, ':null': null },
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (!Attributes) return { outcome: 'unknown' };
      return { outcome: 'redeemed', record: withoutKeys<T>(Attributes) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const record = await this.get<T>(key);
      return record ? { outcome: 'reused', record } : { outcome: 'unknown' };
    }
  }
}
