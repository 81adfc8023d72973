import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../../domain/concurrency.ts';

export { forEachLimited };

type Key = Record<string, unknown>;
type Item = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** BatchGetItem takes 100 keys, BatchWriteItem 25 requests; both may leave some unprocessed. */
const GET_LIMIT = 100;
const WRITE_LIMIT = 25;
/** Unprocessed items mean the table is throttling: wait a little longer each round. */
const RETRY_BASE_MS = 25;

/** Reads any number of items by key (strongly consistent reads are not needed by callers). */
export async function batchGetAll(db: DynamoDBDocumentClient, table: string, keys: Key[]): Promise<Item[]> {
  const chunks = chunk(keys, GET_LIMIT);
  const pages = await Promise.all(
    chunks.map(async (slice) => {
      const items: Item[] = [];
      let pending: Key[] = slice;
      for (let round = 0; pending.length > 0; round++) {
        if (round > 0) await pause(round);
        const response: BatchGetCommandOutput = await db.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }),
        );
        items.push(...(response.Responses?.[table] ?? []));
        pending = response.UnprocessedKeys?.[table]?.Keys ?? [];
      }
      return items;
    }),
  );
  return pages.flat();
}

/** Puts and deletes any number of items, `concurrency` batches at a time. */
export async function batchWriteAll(
  db: DynamoDBDocumentClient,
  table: string,
  requests: WriteRequest[],
  concurrency = 4,
): Promise<void> {
  await forEachLimited(chunk(requests, WRITE_LIMIT), concurrency, async (slice) => {
    let pending = slice;
    for (let round = 0; pending.length > 0; round++) {
      if (round > 0) await pause(round);
      const response: BatchWriteCommandOutput = await db.send(
        new BatchWriteCommand({ RequestItems: { [table]: pending } }),
      );
      pending = response.UnprocessedItems?.[table] ?? [];
    }
  });
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function pause(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RETRY_BASE_MS * 2 ** Math.min(round, 6)));
}
