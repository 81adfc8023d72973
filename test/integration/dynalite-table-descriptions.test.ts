import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';

/**
 * The emulated DynamoDB keeps table descriptions in memory (src/local/dynalite-table-cache.ts); what
 * it answers must still follow every change to a table, as a fresh read from its database would.
 */
describe('table descriptions in the emulated DynamoDB', () => {
  const TableName = 'description-probe';
  let dataDir: string;
  let emulators: Emulators;
  let dynamodb: DynamoDBClient;

  const describeTable = async () => (await dynamodb.send(new DescribeTableCommand({ TableName }))).Table;
  const createTable = (capacity: number) =>
    dynamodb.send(
      new CreateTableCommand({
        TableName,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        ProvisionedThroughput: { ReadCapacityUnits: capacity, WriteCapacityUnits: capacity },
      }),
    );

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'notes-table-descriptions-'));
    emulators = await startEmulators({
      dataDir,
      storagePort: 0,
      queue: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 },
      log: () => undefined,
    });
    dynamodb = new DynamoDBClient(await emulatorClientConfig(dataDir, emulators.endpoints.dynamodb));
  });

  afterAll(async () => {
    dynamodb?.destroy();
    await emulators?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers the new throughput right after UpdateTable, the deleted table as missing, and a re-created one as new', async () => {
    await createTable(1);
    expect((await describeTable())?.ProvisionedThroughput?.ReadCapacityUnits).toBe(1);
    await dynamodb.send(new PutItemCommand({ TableName, Item: { pk: { S: 'kept' } } }));

    await dynamodb.send(
      new UpdateTableCommand({
        TableName,
        ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 },
      }),
    );
    expect((await describeTable())?.ProvisionedThroughput?.ReadCapacityUnits).toBe(2);
    const kept = await dynamodb.send(new GetItemCommand({ TableName, Key: { pk: { S: 'kept' } } }));
    expect(kept.Item).toEqual({ pk: { S: 'kept' } });

    await dynamodb.send(new DeleteTableCommand({ TableName }));
    await expect(describeTable()).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(
      dynamodb.send(new GetItemCommand({ TableName, Key: { pk: { S: 'kept' } } })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);

    await createTable(3);
    expect((await describeTable())?.ProvisionedThroughput?.ReadCapacityUnits).toBe(3);
    const gone = await dynamodb.send(new GetItemCommand({ TableName, Key: { pk: { S: 'kept' } } }));
    expect(gone.Item).toBeUndefined();
  });
});
