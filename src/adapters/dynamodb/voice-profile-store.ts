import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors.ts';
import type { VoiceProfile, VoiceProfileSettings } from '../../domain/voice-profile.ts';
import type { VoiceProfileStore } from '../../ports/voice-profile-store.ts';
import { queryAllItems, withoutKeys, writeIf } from './client.ts';
import { keys } from './keys.ts';

/** Voice profiles in the notes table, in their account's partition (see keys.ts). */
export class DynamoVoiceProfileStore implements VoiceProfileStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getSettings(accountId: string): Promise<VoiceProfileSettings> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.voiceProfileSettings(accountId),
        ConsistentRead: true,
      }),
    );
    return Item ? withoutKeys<VoiceProfileSettings>(Item) : { enabled: false };
  }

  async putSettings(accountId: string, settings: VoiceProfileSettings): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.voiceProfileSettings(accountId), ...settings },
      }),
    );
  }

  async listProfiles(accountId: string): Promise<VoiceProfile[]> {
    const { pk, skPrefix } = keys.voiceProfilesPrefix(accountId);
    const profiles: VoiceProfile[] = [];
    for await (const profile of queryAllItems<VoiceProfile>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    }))
      profiles.push(profile);
    return profiles;
  }

  async getProfile(accountId: string, profileId: string): Promise<VoiceProfile | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.voiceProfile(accountId, profileId),
        ConsistentRead: true,
      }),
    );
    return Item ? withoutKeys<VoiceProfile>(Item) : null;
  }

  async createProfile(profile: VoiceProfile): Promise<void> {
    const written = await writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.voiceProfile(profile.account_id, profile.profile_id), ...profile },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    if (!written) throw new ConflictError(`A voice profile with ID ${profile.profile_id} exists`);
  }

  replaceProfile(expected: VoiceProfile, next: VoiceProfile): Promise<boolean> {
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.voiceProfile(expected.account_id, expected.profile_id), ...next },
        ConditionExpression: 'updated_at = :seen',
        ExpressionAttributeValues: { ':seen': expected.updated_at },
      }),
    );
  }

  async deleteProfile(accountId: string, profileId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.voiceProfile(accountId, profileId) }),
    );
  }
}
