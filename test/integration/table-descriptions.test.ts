import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DynaliteStore,
  rememberTableDescriptions,
  withRememberedTables,
} from '../../src/local/table-descriptions.ts';

const requireFromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));

describe("dynalite's table descriptions, remembered", () => {
  let server: import('node:http').Server;
  let client: DynamoDBClient;

  beforeAll(async () => {
    rememberTableDescriptions();
    const { default: dynalite } = await import('dynalite');
    server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'AKIDTABLES', secretAccessKey: 'secret' },
    });
  });

  afterAll(async () => {
    client?.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Waits (bounded) until the table is ACTIVE, as a client of DynamoDB does after a table change. */
  async function activeDescription(name: string) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.TableStatus === 'ACTIVE') return Table;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`${name} did not become ACTIVE`);
  }

  const createTable = (name: string, key: string, readCapacity: number) =>
    client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        ProvisionedThroughput: { ReadCapacityUnits: readCapacity, WriteCapacityUnits: 1 },
      }),
    );

  it('describes the table as changed after UpdateTable', async () => {
    await createTable('changed', 'id', 1);
    await activeDescription('changed');
    // Read through the requests that use the description, so it is remembered.
    await client.send(new PutItemCommand({ TableName: 'changed', Item: { id: { S: 'a' } } }));
    await client.send(new GetItemCommand({ TableName: 'changed', Key: { id: { S: 'a' } } }));

    await client.send(
      new UpdateTableCommand({
        TableName: 'changed',
        ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 1 },
      }),
    );
    const table = await activeDescription('changed');
    expect(table.ProvisionedThroughput?.ReadCapacityUnits).toBe(7);
  });

  it('forgets a deleted table, and knows the new key of a table made again under its name', async () => {
    await createTable('remade', 'id', 1);
    await activeDescription('remade');
    await client.send(new PutItemCommand({ TableName: 'remade', Item: { id: { S: 'a' } } }));
    await client.send(new GetItemCommand({ TableName: 'remade', Key: { id: { S: 'a' } } }));

    await client.send(new DeleteTableCommand({ TableName: 'remade' }));
    await expect(
      client.send(new GetItemCommand({ TableName: 'remade', Key: { id: { S: 'a' } } })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

    await createTable('remade', 'other', 1);
    await activeDescription('remade');
    await client.send(new PutItemCommand({ TableName: 'remade', Item: { other: { S: 'b' } } }));
    const { Item } = await client.send(
      new GetItemCommand({ TableName: 'remade', Key: { other: { S: 'b' } } }),
    );
    expect(Item).toEqual({ other: { S: 'b' } });
  });

  it('reads an active table’s description once for item requests, and again after it is written', async () => {
    const { create } = requireFromDynalite('./db') as { create: (options: object) => DynaliteStore };
    const store = withRememberedTables(create({}));
    let reads = 0;
    const get = store.tableDb.get;
    store.tableDb.get = (key, callback) => {
      reads++;
      get(key, callback);
    };
    type Described = { TableStatus?: string; Marker?: number };
    // As dynalite's item requests ask (with the status check), and its table requests (without).
    const forItems = () =>
      new Promise<Described>((resolve, reject) =>
        store.getTable('t', (error, table) => (error ? reject(error) : resolve(table as Described))),
      );
    const forTableChange = () =>
      new Promise<Described>((resolve, reject) =>
        store.getTable('t', false, (error, table) => (error ? reject(error) : resolve(table as Described))),
      );
    const write = (marker: number) =>
      new Promise<void>((resolve, reject) =>
        store.tableDb.put('t', { TableName: 't', TableStatus: 'ACTIVE', Marker: marker }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );

    await write(1);
    expect((await forItems()).Marker).toBe(1);
    const shared = await forItems();
    expect(shared.Marker).toBe(1);
    expect(reads).toBe(1);
    // The shared description cannot be changed by mistake.
    expect(() => {
      shared.Marker = 99;
    }).toThrow(TypeError);

    // A table request reads its own copy, which it may change (as UpdateTable does before writing it).
    const own = await forTableChange();
    expect(reads).toBe(2);
    own.Marker = 5;
    expect((await forItems()).Marker).toBe(1);

    await write(2);
    expect((await forItems()).Marker).toBe(2);
    expect(reads).toBe(3);
  });
});
