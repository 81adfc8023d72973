import { S3Client } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/adapters/dynamodb/client.ts';
import { S3BlobStore } from '../../src/adapters/s3/blob-store.ts';
import { emulatorClientConfig } from './emulator-clients.ts';
import type { RunningService } from './local-runtime.ts';

/** Every table item and object key that mentions `text` (a note ID): for "nothing is left" checks. */
export async function findEverywhere(
  service: Pick<RunningService, 'info' | 'dataDir'>,
  text: string,
): Promise<{ items: unknown[]; objects: string[] }> {
  const db = createDocumentClient(
    await emulatorClientConfig(service.dataDir, service.info.endpoints.dynamodb),
  );
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: service.info.table_name, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) if (JSON.stringify(item).includes(text)) items.push(item);
    start = page.LastEvaluatedKey;
  } while (start);
  const blobs = new S3BlobStore(
    new S3Client(await emulatorClientConfig(service.dataDir, service.info.endpoints.s3)),
    service.info.bucket_name,
    60,
  );
  const objects = (await blobs.listKeys('')).filter((key) => key.includes(text));
  return { items, objects };
}

/** Number of items in the table: "nothing was stored" checks compare it before and after. */
export async function countItems(service: RunningService): Promise<number> {
  const db = createDocumentClient(
    await emulatorClientConfig(service.dataDir, service.info.endpoints.dynamodb),
  );
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: service.info.table_name, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
