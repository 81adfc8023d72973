import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Collection, type CollectionChanges, nameKey } from '../../domain/collection.ts';
import { ConflictError } from '../../domain/errors.ts';
import type { Note } from '../../domain/note.ts';
import type { CollectionStore, MemberPage } from '../../ports/collection-store.ts';
import { batchGetAll, batchWriteAll } from './batch.ts';
import { queryAllItems, withoutKeys, writeIf } from './client.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { collectionsOf, GSI1, keys, notesInCollection } from './keys.ts';

/**
 * A name item younger than this is never taken over: its collection may still be being created or
 * renamed (the name is reserved first, then the collection written). An older one whose collection
 * does not carry the name was left by an interrupted create or rename, and is free again.
 */
const NAME_RESERVATION_GRACE_MS = 60_000;

interface NameItem {
  collection_id: string;
  reserved_at: number;
}

/** Collections in the notes table (see keys.ts). dynalite has no transactions: single-item conditional writes only. */
export class DynamoCollectionStore implements CollectionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createCollection(collection: Collection): Promise<void> {
    const { account_id: accountId, collection_id: collectionId } = collection;
    await this.reserveName(accountId, collection.name, collectionId, collection.created_at);
    if (collection.retention_days) await this.markRetaining(accountId, collectionId);
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.collection(accountId, collectionId),
          ...keys.collectionIndex(accountId, collectionId),
          ...collection,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getCollection(accountId: string, collectionId: string): Promise<Collection | null> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.collection(accountId, collectionId),
        ConsistentRead: true,
      }),
    );
    return Item ? withoutKeys<Collection>(Item) : null;
  }

  async getCollections(accountId: string, collectionIds: string[]): Promise<Map<string, Collection>> {
    const items = await batchGetAll(
      this.db,
      this.tableName,
      collectionIds.map((id) => keys.collection(accountId, id)),
    );
    return new Map(
      items.map((item) => withoutKeys<Collection>(item)).map((found) => [found.collection_id, found]),
    );
  }

  async listCollections(accountId: string): Promise<Collection[]> {
    const items = await this.queryAll({
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': collectionsOf(accountId) },
    });
    return items.map((item) => withoutKeys<Collection>(item));
  }

  async updateCollection(
    accountId: string,
    collectionId: string,
    changes: CollectionChanges,
    now: number,
  ): Promise<Collection | null> {
    const current = await this.getCollection(accountId, collectionId);
    if (!current) return null;
    const { name } = changes;
    const renamesKey = name !== undefined && nameKey(name) !== nameKey(current.name);
    if (renamesKey) await this.reserveName(accountId, name, collectionId, now);
    // Marked before a period is set and unmarked after it is cleared: the mark is never missing.
    if (changes.retention_days) await this.markRetaining(accountId, collectionId);
    // The instructions and the period live on the collection item, absent when there are none.
    const set = ['updated_at = :now'];
    const remove: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':now': now };
    for (const field of ['name', 'instructions', 'retention_days'] as const) {
      const value = changes[field];
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) remove.push(`#${field}`);
      else {
        set.push(`#${field} = :${field}`);
        values[`:${field}`] = value;
      }
    }
    const updated = await writeIf(
      this.db,
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.collection(accountId, collectionId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      }),
    );
    if (!updated) {
      // Deleted meanwhile: give the new name back.
      if (renamesKey) await this.releaseName(accountId, name, collectionId);
      return null;
    }
    if (renamesKey) await this.releaseName(accountId, current.name, collectionId);
    if (changes.retention_days === null) await this.unmarkRetaining(accountId, collectionId);
    const next: Collection = { ...current, updated_at: now };
    if (name !== undefined) next.name = name;
    if (changes.instructions === null) delete next.instructions;
    else if (changes.instructions !== undefined) next.instructions = changes.instructions;
    if (changes.retention_days === null) delete next.retention_days;
    else if (changes.retention_days !== undefined) next.retention_days = changes.retention_days;
    return next;
  }

  /** Filings first, the collection next, its name last: an interrupted deletion can be repeated. */
  async deleteCollection(accountId: string, collectionId: string): Promise<void> {
    const current = await this.getCollection(accountId, collectionId);
    if (!current) return;
    const filings = await this.queryAll({
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': notesInCollection(accountId, collectionId) },
      ProjectionExpression: 'pk, sk',
    });
    await batchWriteAll(
      this.db,
      this.tableName,
      filings.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
    );
    await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.collection(accountId, collectionId) }),
    );
    await this.releaseName(accountId, current.name, collectionId);
    if (current.retention_days) await this.unmarkRetaining(accountId, collectionId);
  }

  async addNote(accountId: string, collectionId: string, note: Note, now: number): Promise<void> {
    await writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.filing(accountId, note.note_id, collectionId),
          ...keys.filingIndex(accountId, collectionId, note.created_at, note.note_id),
          note_id: note.note_id,
          collection_id: collectionId,
          filed_at: now,
        },
        // Filing twice keeps the first filing as it was.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async removeNote(accountId: string, collectionId: string, noteId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.filing(accountId, noteId, collectionId) }),
    );
  }

  async notesIn(
    accountId: string,
    collectionId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<MemberPage> {
    const gsi1pk = notesInCollection(accountId, collectionId);
    const { Items = [], LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': gsi1pk },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey:
          cursor === undefined
            ? undefined
            : decodeCursor(
                cursor,
                (noteId) => ({ ...keys.filing(accountId, noteId, collectionId), gsi1pk }),
                'listNotes',
              ),
      }),
    );
    return {
      noteIds: Items.map((item) => String(item.note_id)),
      nextCursor: LastEvaluatedKey ? encodeCursor(LastEvaluatedKey) : null,
    };
  }

  async allNotesIn(accountId: string, collectionId: string): Promise<string[]> {
    const items = await this.queryAll({
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': notesInCollection(accountId, collectionId) },
      ProjectionExpression: 'note_id',
    });
    return items.map((item) => String(item.note_id));
  }

  async *retainingCollections(): AsyncIterable<{ accountId: string; collectionId: string }> {
    const items = queryAllItems<{ account_id: string; collection_id: string }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.retainingCollections().pk },
    });
    for await (const item of items) yield { accountId: item.account_id, collectionId: item.collection_id };
  }

  async *notesCreatedBefore(
    accountId: string,
    collectionId: string,
    createdBefore: number,
  ): AsyncIterable<string> {
    const filings = queryAllItems<{ note_id: string }>(this.db, {
      TableName: this.tableName,
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
      ExpressionAttributeValues: {
        ':pk': notesInCollection(accountId, collectionId),
        ':before': keys.filingsCreatedBefore(createdBefore),
      },
      ProjectionExpression: 'note_id',
    });
    for await (const filing of filings) yield filing.note_id;
  }

  private async markRetaining(accountId: string, collectionId: string): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.retainingCollection(accountId, collectionId),
          account_id: accountId,
          collection_id: collectionId,
        },
      }),
    );
  }

  private async unmarkRetaining(accountId: string, collectionId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.retainingCollection(accountId, collectionId),
      }),
    );
  }

  /**
   * Reserves the name for the collection, or throws ConflictError naming the collection that has it.
   * A reservation left behind by an interrupted create or rename is taken over once it is old enough.
   */
  private async reserveName(accountId: string, name: string, collectionId: string, now: number) {
    const key = keys.collectionName(accountId, nameKey(name));
    const item: NameItem = { collection_id: collectionId, reserved_at: now };
    if (
      await this.putName(key, item, 'attribute_not_exists(pk) OR collection_id = :mine', {
        ':mine': collectionId,
      })
    )
      return;
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    const holder = Item as NameItem | undefined;
    if (holder) {
      const holding = await this.getCollection(accountId, holder.collection_id);
      const inUse = holding && nameKey(holding.name) === nameKey(name);
      if (inUse) {
        throw new ConflictError(
          `A collection named "${holding.name}" already exists (collection_id ${holding.collection_id}); choose another name or use that collection`,
        );
      }
      const abandoned = now - holder.reserved_at >= NAME_RESERVATION_GRACE_MS;
      if (
        abandoned &&
        (await this.putName(key, item, 'collection_id = :theirs AND reserved_at = :at', {
          ':theirs': holder.collection_id,
          ':at': holder.reserved_at,
        }))
      )
        return;
    }
    throw new ConflictError(
      `The collection name "${name}" is being taken by another request; retry in a minute`,
    );
  }

  private async putName(
    key: { pk: string; sk: string },
    item: NameItem,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    return writeIf(
      this.db,
      new PutCommand({
        TableName: this.tableName,
        Item: { ...key, ...item },
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** Frees the name only if this collection still holds it. */
  private async releaseName(accountId: string, name: string, collectionId: string): Promise<void> {
    await writeIf(
      this.db,
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.collectionName(accountId, nameKey(name)),
        ConditionExpression: 'collection_id = :mine',
        ExpressionAttributeValues: { ':mine': collectionId },
      }),
    );
  }

  private async queryAll(
    input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName' | 'ExclusiveStartKey'>,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({ ...input, TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}
