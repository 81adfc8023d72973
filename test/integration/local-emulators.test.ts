import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Event, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { LOCAL_CREDENTIALS_FILE, readLocalCredentials } from '../../src/local/local-credentials.ts';
import { startLocalRuntime } from '../../src/local/runtime.ts';
import { startRuntimeEmulators } from '../../src/local/runtime-emulators.ts';
import { type SqsBatchHandler, startSqsEventSource } from '../../src/local/sqs-event-source.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';

// Longer than the event source's 1 s long poll: local-aws-sqs would otherwise hand the same message
// out twice within one poll.
const VISIBILITY_TIMEOUT_SECONDS = 2;
const MAX_RECEIVE_COUNT = 3;
const queueSettings = {
  visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
  maxReceiveCount: MAX_RECEIVE_COUNT,
};

const dataDirs: string[] = [];
async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notes-emulators-'));
  dataDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const md5 = (text: Uint8Array | string) => createHash('md5').update(text).digest('hex');

async function receive(sqs: SQSClient, queueUrl: string, waitTimeSeconds: number): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitTimeSeconds,
      AttributeNames: ['All'],
    }),
  );
  return Messages;
}

/** Receives until a message arrives (and deletes it), or fails after timeoutMs. */
async function receiveFirst(sqs: SQSClient, queueUrl: string, timeoutMs = 10_000): Promise<Message> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [message] = await receive(sqs, queueUrl, 1);
    if (message) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      return message;
    }
  }
  throw new Error(`no message on ${queueUrl} within ${timeoutMs} ms`);
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe('local emulators', () => {
  it('keeps a table item, and its index entry, across a stop and restart with the same data directory', async () => {
    const dataDir = await newDataDir();
    const item = {
      pk: `ACCOUNT#${randomUUID()}`,
      sk: 'NOTE#1',
      gsi1pk: 'restart-test',
      gsi1sk: '1',
      title: 'kept',
    };

    const first = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    const firstClient = DynamoDBDocumentClient.from(
      new DynamoDBClient(await emulatorClientConfig(dataDir, first.endpoints.dynamodb)),
    );
    await firstClient.send(new PutCommand({ TableName: first.tableName, Item: item }));
    firstClient.destroy();
    await first.stop();

    const second = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    const secondClient = DynamoDBDocumentClient.from(
      new DynamoDBClient(await emulatorClientConfig(dataDir, second.endpoints.dynamodb)),
    );
    try {
      const { Item } = await secondClient.send(
        new GetCommand({ TableName: second.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
      expect(Item).toEqual(item);
      const { Items } = await secondClient.send(
        new QueryCommand({
          TableName: second.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': 'restart-test' },
        }),
      );
      expect(Items).toEqual([item]);
    } finally {
      secondClient.destroy();
      await second.stop();
    }
  });

  it('generates its credentials on first start, readable by the owner only, and keeps them across a restart', async () => {
    const dataDir = await newDataDir();
    const first = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    await first.stop();
    const file = join(dataDir, LOCAL_CREDENTIALS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = await readLocalCredentials(dataDir);
    expect(stored).toEqual(first.credentials);
    expect(stored.accessKeyId).toMatch(/^LK[A-Z2-7]{18}$/);
    expect(stored.secretAccessKey.length).toBeGreaterThanOrEqual(40);

    const second = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    await second.stop();
    expect(second.credentials).toEqual(stored);
    const elsewhere = await startEmulators({
      dataDir: await newDataDir(),
      storagePort: 0,
      queue: queueSettings,
    });
    await elsewhere.stop();
    expect(elsewhere.credentials.accessKeyId).not.toBe(stored.accessKeyId);
    expect(elsewhere.credentials.secretAccessKey).not.toBe(stored.secretAccessKey);
  });

  it("refuses to start when the object store's port is in use, says so, and holds nothing afterwards", async () => {
    const dataDir = await newDataDir();
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(startEmulators({ dataDir, storagePort: port, queue: queueSettings })).rejects.toThrow(
        `object storage could not listen: port ${port} on 127.0.0.1 is already in use`,
      );
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
    // The failed start let go of the database: the same data directory starts.
    const next = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    await next.stop();
  });

  it("stops its emulators when the runtime's start fails later (the API's port is taken)", async () => {
    const dataDir = await newDataDir();
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(
        startLocalRuntime({ dataDir, port, storagePort: 0, workers: false, log: () => undefined }),
      ).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
    // Its emulators' thread let go of the database: the same data directory starts again.
    const next = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    await next.stop();
  });

  it('stops emulators it was handed already starting (as npm start does) when its own start fails', async () => {
    const dataDir = await newDataDir();
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as AddressInfo;
    const options = { dataDir, port, storagePort: 0, workers: false, log: () => undefined };
    try {
      await expect(
        startLocalRuntime({ ...options, emulators: startRuntimeEmulators(options) }),
      ).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
    const next = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    await next.stop();
  });

  it('refuses a second start on a data directory whose database is in use, says so, and the first keeps serving', async () => {
    const dataDir = await newDataDir();
    const first = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    const db = DynamoDBDocumentClient.from(
      new DynamoDBClient(await emulatorClientConfig(dataDir, first.endpoints.dynamodb)),
    );
    try {
      await expect(startEmulators({ dataDir, storagePort: 0, queue: queueSettings })).rejects.toThrow(
        /database .* is in use by another process/,
      );
      const key = { pk: `ACCOUNT#${randomUUID()}`, sk: 'NOTE#1' };
      await db.send(new PutCommand({ TableName: first.tableName, Item: key }));
      expect((await db.send(new GetCommand({ TableName: first.tableName, Key: key }))).Item).toEqual(key);
    } finally {
      db.destroy();
      await first.stop();
    }
  });

  it("answers requests while the caller's event loop is blocked: the emulators run on a thread of their own", async () => {
    const dataDir = await newDataDir();
    const emulators = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
    try {
      // execFileSync blocks this thread until the child has its answer (an unsigned request's 403):
      // emulators on this thread could never answer it, and the child would time out.
      const status = execFileSync(
        process.execPath,
        [
          '-e',
          'fetch(process.argv[1]).then((r) => console.log(r.status))',
          `${emulators.endpoints.s3}/notes`,
        ],
        { timeout: 30_000, encoding: 'utf8' },
      );
      expect(status.trim()).toBe('403');
    } finally {
      await emulators.stop();
    }
  });

  describe('while running', () => {
    let emulators: Emulators;
    let s3: S3Client;
    let sqs: SQSClient;

    beforeAll(async () => {
      const dataDir = await newDataDir();
      emulators = await startEmulators({ dataDir, storagePort: 0, queue: queueSettings });
      s3 = new S3Client(await emulatorClientConfig(dataDir, emulators.endpoints.s3));
      sqs = new SQSClient(await emulatorClientConfig(dataDir, emulators.endpoints.sqs));
    });

    afterAll(async () => {
      s3?.destroy();
      sqs?.destroy();
      await emulators?.stop();
    });

    it('stores an object uploaded through a presigned URL byte for byte and queues exactly one S3 event for it on the uploads queue, as the bucket notification does on AWS', async () => {
      const key = `accounts/${randomUUID()}/notes/${randomUUID()}/audio`;
      const audio = randomBytes(3 * 1024 * 1024);
      const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: emulators.bucketName, Key: key }), {
        expiresIn: 300,
      });

      const upload = await fetch(url, { method: 'PUT', body: audio });
      expect(upload.status).toBe(200);

      const stored = await s3.send(new GetObjectCommand({ Bucket: emulators.bucketName, Key: key }));
      const storedBytes = await stored.Body?.transformToByteArray();
      expect(storedBytes && sha256(storedBytes)).toBe(sha256(audio));

      const message = await receiveFirst(sqs, emulators.queueUrls.uploads);
      expect(JSON.parse(message.Body ?? '')).toEqual({
        Records: [
          {
            eventVersion: '2.1',
            eventSource: 'aws:s3',
            awsRegion: 'us-east-1',
            eventTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
            eventName: 'ObjectCreated:Put',
            userIdentity: { principalId: expect.any(String) },
            requestParameters: { sourceIPAddress: expect.any(String) },
            responseElements: { 'x-amz-request-id': expect.any(String), 'x-amz-id-2': expect.any(String) },
            s3: {
              s3SchemaVersion: '1.0',
              configurationId: expect.any(String),
              bucket: {
                name: emulators.bucketName,
                ownerIdentity: { principalId: expect.any(String) },
                arn: `arn:aws:s3:::${emulators.bucketName}`,
              },
              object: { key, size: audio.length, eTag: md5(audio), sequencer: expect.any(String) },
            },
          },
        ],
      } satisfies S3Event);
      expect(await receive(sqs, emulators.queueUrls.uploads, 1)).toEqual([]);
      // Recognition's queue stays free of upload events: the uploads worker takes them.
      expect(await receive(sqs, emulators.queueUrls.transcription, 1)).toEqual([]);
    });

    it('URL-encodes the object key in the queued S3 event as AWS does', async () => {
      const key = `uploads/my note=1 (draft)+x/audio`;
      await s3.send(new PutObjectCommand({ Bucket: emulators.bucketName, Key: key, Body: 'x' }));

      const message = await receiveFirst(sqs, emulators.queueUrls.uploads);
      const [record] = (JSON.parse(message.Body ?? '') as S3Event).Records;
      expect(record?.s3.object.key).toBe('uploads/my+note%3D1+%28draft%29%2Bx/audio');
      expect(decodeURIComponent(record?.s3.object.key.replace(/\+/g, ' ') ?? '')).toBe(key);
    });

    it('queues nothing for an object whose key does not end in /audio', async () => {
      const key = `accounts/${randomUUID()}/notes/${randomUUID()}/transcription.json`;
      await s3.send(new PutObjectCommand({ Bucket: emulators.bucketName, Key: key, Body: '{}' }));

      expect(await receive(sqs, emulators.queueUrls.uploads, 2)).toEqual([]);
    });

    it('redelivers a message reported in batchItemFailures with a growing receive count, then moves it to the DLQ after maxReceiveCount receives', async () => {
      const body = JSON.stringify({ test: 'redrive', id: randomUUID() });
      const seen: SQSRecord[] = [];
      const handler: SqsBatchHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
        seen.push(...event.Records);
        return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
      };
      const source = startSqsEventSource({
        sqs,
        queueUrl: emulators.queueUrls.transcription,
        queueArn: emulators.queueArns.transcription,
        handler,
        batchSize: 10,
      });
      try {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: emulators.queueUrls.transcription,
            MessageBody: body,
            MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
          }),
        );
        const deadLettered = await receiveFirst(sqs, emulators.queueUrls.transcriptionDlq, 15_000);
        expect(deadLettered.Body).toBe(body);
      } finally {
        await source.stop();
      }

      expect(seen.map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
      expect(seen[0]).toEqual({
        messageId: expect.any(String),
        receiptHandle: expect.any(String),
        body,
        attributes: expect.objectContaining({
          ApproximateReceiveCount: '1',
          SentTimestamp: expect.stringMatching(/^\d{13}$/),
          SenderId: expect.any(String),
          ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
        }),
        messageAttributes: {
          kind: { stringValue: 'test', stringListValues: [], binaryListValues: [], dataType: 'String' },
        },
        md5OfBody: md5(body),
        md5OfMessageAttributes: expect.any(String),
        eventSource: 'aws:sqs',
        eventSourceARN: emulators.queueArns.transcription,
        awsRegion: 'us-east-1',
      } satisfies SQSRecord);
    });

    it('deletes a message whose handler succeeds, so it is not delivered again', async () => {
      const bodies: string[] = [];
      const source = startSqsEventSource({
        sqs,
        queueUrl: emulators.queueUrls.transcription,
        queueArn: emulators.queueArns.transcription,
        handler: async (event) => {
          bodies.push(...event.Records.map((r) => r.body));
        },
      });
      try {
        await sqs.send(
          new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: 'ok' }),
        );
        await waitFor(() => bodies.length > 0);
        await sleep(VISIBILITY_TIMEOUT_SECONDS * 1000 + 1500);
      } finally {
        await source.stop();
      }

      expect(bodies).toEqual(['ok']);
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: emulators.queueUrls.transcription,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      expect(Attributes).toEqual({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
      });
    });

    it('hands as many batches at once as its concurrency, like a function with that many instances', async () => {
      let inFlight = 0;
      let mostAtOnce = 0;
      const handled: string[] = [];
      let bothStarted: () => void = () => {};
      const together = new Promise<void>((resolve) => {
        bothStarted = resolve;
      });
      const source = startSqsEventSource({
        sqs,
        queueUrl: emulators.queueUrls.transcription,
        queueArn: emulators.queueArns.transcription,
        batchSize: 1,
        concurrency: 2,
        handler: async (event) => {
          inFlight += 1;
          mostAtOnce = Math.max(mostAtOnce, inFlight);
          if (inFlight === 2) bothStarted();
          // Each handler waits for the other (bounded, so a serial source fails the assertion, not the run).
          await Promise.race([together, sleep(VISIBILITY_TIMEOUT_SECONDS * 1000 - 500)]);
          handled.push(...event.Records.map((r) => r.body));
          inFlight -= 1;
        },
      });
      try {
        for (const body of ['first', 'second']) {
          await sqs.send(
            new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
          );
        }
        await waitFor(() => handled.length === 2);
      } finally {
        await source.stop();
      }
      expect(mostAtOnce).toBe(2);
      expect(handled.sort()).toEqual(['first', 'second']);
    });

    it('keeps polling after a handler throws, and redelivers the message it threw on', async () => {
      const logs: string[] = [];
      const handled: Array<{ body: string; receiveCount: string }> = [];
      let calls = 0;
      const source = startSqsEventSource({
        sqs,
        queueUrl: emulators.queueUrls.transcription,
        queueArn: emulators.queueArns.transcription,
        batchSize: 1,
        log: (line) => logs.push(line),
        handler: async (event) => {
          calls += 1;
          if (calls === 1) throw new Error('first call fails\nwith a second line');
          for (const r of event.Records)
            handled.push({ body: r.body, receiveCount: r.attributes.ApproximateReceiveCount });
        },
      });
      try {
        for (const body of ['secret-body-a', 'secret-body-b']) {
          await sqs.send(
            new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
          );
        }
        await waitFor(() => handled.length === 2);
      } finally {
        await source.stop();
      }

      expect(handled.map((h) => h.body).sort()).toEqual(['secret-body-a', 'secret-body-b']);
      // The message the first call threw on came back after the visibility timeout.
      expect(handled.map((h) => h.receiveCount).sort()).toEqual(['1', '2']);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toContain('handler failed');
      expect(logs[0]).not.toMatch(/secret-body|\n/);
    });
  });
});
