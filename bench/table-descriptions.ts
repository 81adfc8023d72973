/**
 * `npx tsx bench/table-descriptions.ts [--rounds N] [--pairs N]`: what remembering dynalite's table
 * descriptions (src/local/table-descriptions.ts) saves per getNote's worth of DynamoDB requests (a
 * Query of a note's items and a BatchGetItem of a collection's name), in CPU time of this process (all
 * its threads, libuv's thread pool included, where LevelDB reads). Two dynalite servers on LevelDB in
 * this process, the second made after the descriptions are remembered, the same table and items in
 * each, one client each; measured in alternating short rounds so the machine's load falls on both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createTableInput } from '../src/adapters/dynamodb/table-definition.ts';
import { rememberTableDescriptions } from '../src/local/table-descriptions.ts';
import { cliOption, median } from './support.ts';

const TABLE = 'notes';
const PK = 'ACCOUNT#bench';

async function start(dynalite: (options: object) => Server, path: string) {
  const server = dynalite({ path, createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'secret' },
  });
  await client.send(new CreateTableCommand(createTableInput(TABLE)));
  const db = DynamoDBDocumentClient.from(client);
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const sk of ['NOTE#n', 'NOTE#n#COLLECTION#c', 'NOTE#n#JOB#transcription', 'COLLECTION#c']) {
    await db.send(new PutCommand({ TableName: TABLE, Item: { pk: PK, sk, title: 'A note', version: 1 } }));
  }
  return { server, client, db };
}

/** One getNote's DynamoDB requests: the note with its items, then its collection's name. */
async function getNoteRequests(db: DynamoDBDocumentClient) {
  await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': 'NOTE#n' },
      ConsistentRead: true,
    }),
  );
  await db.send(
    new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: PK, sk: 'COLLECTION#c' }] } } }),
  );
}

async function cpuPerPair(db: DynamoDBDocumentClient, pairs: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < pairs; i++) await getNoteRequests(db);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / pairs;
}

const rounds = Number(cliOption(process.argv, '--rounds') ?? 30);
const pairs = Number(cliOption(process.argv, '--pairs') ?? 200);
const dir = await mkdtemp(join(tmpdir(), 'notes-bench-tables-'));
const { default: dynalite } = await import('dynalite');
const reading = await start(dynalite, join(dir, 'reading'));
rememberTableDescriptions();
const remembering = await start(dynalite, join(dir, 'remembering'));
try {
  const results = { reading: [] as number[], remembering: [] as number[] };
  for (let i = 0; i < 300; i++) {
    await getNoteRequests(reading.db);
    await getNoteRequests(remembering.db);
  }
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0 ? (['reading', 'remembering'] as const) : (['remembering', 'reading'] as const);
    for (const which of order) {
      results[which].push(await cpuPerPair(which === 'reading' ? reading.db : remembering.db, pairs));
    }
  }
  const read = median(results.reading);
  const remembered = median(results.remembering);
  console.log(
    `CPU per getNote's Query + BatchGetItem (client and dynalite, this process), median of ${rounds} rounds of ${pairs}:`,
  );
  console.log(`  description read from LevelDB on every request: ${read.toFixed(4)} ms`);
  console.log(`  description remembered:                         ${remembered.toFixed(4)} ms`);
  console.log(
    `  saved: ${(read - remembered).toFixed(4)} ms (${((100 * (read - remembered)) / read).toFixed(1)} %)`,
  );
} finally {
  for (const { server, client } of [reading, remembering]) {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(dir, { recursive: true, force: true });
}
