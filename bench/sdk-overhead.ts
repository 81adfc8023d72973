/**
 * `npx tsx bench/sdk-overhead.ts [--calls N]`: the CPU one DynamoDB call costs the AWS SDK alone, in
 * this process, with no network and no database: the client's request handler is replaced by one
 * that answers every request at once with a recorded getNote Query answer (a note, its job, its
 * index entry and a filing). What is left is the SDK's own work per call: building and resolving the
 * middleware, the endpoint, the user agent, signing (SHA-256 of the body, HMAC), serializing the
 * request and parsing and unmarshalling the answer. Configurations are measured in turn, alternating,
 * so the machine's load falls on all alike.
 */
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { localAwsClientConfig } from '../src/adapters/aws-client-config.ts';
import { createDocumentClient } from '../src/adapters/dynamodb/client.ts';
import { cliOption } from './support.ts';

const ENDPOINT = 'http://127.0.0.1:8000';
const CREDENTIALS = {
  accessKeyId: 'AKIDLOCALBENCH000000',
  secretAccessKey: 'secret-of-the-local-bench-0000000000000',
};
/** Many short rounds, interleaved: a busy moment of the machine falls on every configuration alike. */
const ROUNDS = 40;

/** A getNote Query answer as dynalite sends it (values shaped like the service's items). */
const QUERY_ANSWER = JSON.stringify({
  Count: 4,
  ScannedCount: 4,
  Items: [
    {
      pk: { S: 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11' },
      sk: { S: 'NOTE#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50' },
      note_id: { S: '5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50' },
      account_id: { S: '0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11' },
      title: { S: 'Note 199' },
      state: { S: 'awaiting_upload' },
      created_at: { S: '2026-11-27T11:25:09.123Z' },
      updated_at: { S: '2026-11-27T11:25:09.123Z' },
      version: { N: '3' },
      audio: { M: { content_type: { S: 'audio/wav' }, size_bytes: { N: '100000' } } },
      gsi1pk: { S: 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11#NOTES' },
      gsi1sk: { S: '2026-11-27T11:25:09.123Z#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50' },
    },
    {
      pk: { S: 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11' },
      sk: { S: 'NOTE#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50#COLLECTION#7a1b' },
      collection_id: { S: '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' },
      filed_at: { S: '2026-11-27T11:25:19.123Z' },
    },
    {
      pk: { S: 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11' },
      sk: { S: 'NOTE#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50#INDEX' },
      terms: { N: '0' },
    },
    {
      pk: { S: 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11' },
      sk: { S: 'NOTE#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50#JOB#transcription' },
      job_id: { S: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b' },
      kind: { S: 'transcription' },
      status: { S: 'awaiting_upload' },
      created_at: { S: '2026-11-27T11:25:09.123Z' },
      updated_at: { S: '2026-11-27T11:25:09.123Z' },
      attempts: { N: '0' },
      version: { N: '1' },
      language: { S: 'en' },
    },
  ],
});

/** Answers every request at once with the recorded Query answer, as dynalite would. */
const cannedHandler = {
  handle: async () => ({
    // What the SDK's HttpResponse holds (it checks the shape, not the class).
    response: {
      statusCode: 200,
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': 'BENCH0000000000000000000000000000000000000000000000',
        'x-amz-crc32': '0',
        'content-length': String(Buffer.byteLength(QUERY_ANSWER)),
      },
      body: Readable.from([Buffer.from(QUERY_ANSWER)]),
    },
  }),
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
};

export interface SdkVariant {
  name: string;
  make(): DynamoDBDocumentClient;
}

const query = () =>
  new QueryCommand({
    TableName: 'notes',
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': 'ACCOUNT#0b6f2c1e-3c1a-4a55-8f0e-3f4f7a0d9b11',
      ':prefix': 'NOTE#5e0c6c0e-1b6f-4f0e-9d6a-0b1d2c3e4f50',
    },
    ConsistentRead: true,
  });

/** CPU milliseconds per call (user + system) over `calls` calls, one at a time. */
async function cpuPerCall(db: DynamoDBDocumentClient, calls: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await db.send(query());
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / calls;
}

const local = (more: Record<string, unknown> = {}) =>
  new DynamoDBClient({
    ...localAwsClientConfig(ENDPOINT, CREDENTIALS),
    requestHandler: cannedHandler,
    ...more,
  });
const documentClient = (client: DynamoDBClient, remove: string[] = []) => {
  for (const name of remove) client.middlewareStack.remove(name);
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
};
const fixedEndpoint = { endpointProvider: () => ({ url: new URL(ENDPOINT) }) };

export const VARIANTS: SdkVariant[] = [
  { name: 'the SDK as it comes (DocumentClient, local settings)', make: () => documentClient(local()) },
  {
    name: 'createDocumentClient as wired (src/adapters/dynamodb/client.ts)',
    make: () =>
      createDocumentClient({ ...localAwsClientConfig(ENDPOINT, CREDENTIALS), requestHandler: cannedHandler }),
  },
  {
    name: 'as it comes, without the logger middleware',
    make: () => documentClient(local(), ['loggerMiddleware']),
  },
  { name: 'as it comes, with a fixed endpoint', make: () => documentClient(local(fixedEndpoint)) },
  {
    name: 'as it comes, without the user-agent middleware',
    make: () => documentClient(local(), ['getUserAgentMiddleware']),
  },
  {
    name: 'as it comes, without recursion detection',
    make: () => documentClient(local(), ['recursionDetectionMiddleware']),
  },
];

export async function sdkOverhead(variants: SdkVariant[], calls: number) {
  const clients = variants.map((variant) => ({ variant, db: variant.make() }));
  for (const { db } of clients) for (let i = 0; i < 500; i++) await db.send(query());
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const { variant, db } of clients) {
      const ms = await cpuPerCall(db, calls);
      results.set(variant.name, [...(results.get(variant.name) ?? []), ms]);
    }
  }
  return [...results].map(([name, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { name, median_ms: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, all_ms: values };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const calls = Number(cliOption(process.argv, '--calls') ?? 250);
  const rows = await sdkOverhead(VARIANTS, calls);
  const base = rows[0]?.median_ms ?? 1;
  for (const row of rows) {
    console.log(
      `${row.median_ms.toFixed(4)} ms/call  (${(row.median_ms / base).toFixed(2)}x)  ${row.name}  `,
    );
  }
}
