import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.ts';
import { startSqsEventSource } from '../../src/local/sqs-event-source.ts';
import { ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import { SqsMessageRetry } from '../../src/workers/message-retry.ts';
import { sqsWorker } from '../../src/workers/sqs-worker.ts';
import { MAX_THROTTLE_WAITS, THROTTLE_WAITS_ATTRIBUTE } from '../../src/workers/throttle-wait.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';

/**
 * The SQS worker wrapper against the local queue emulator, through the event-source loop the local
 * runtime uses: the same calls a worker makes on Lambda. The queue's visibility timeout is an hour,
 * so a failed message that comes back within seconds came back through the wrapper's backoff.
 */
const QUEUE_VISIBILITY_SECONDS = 3600;
// 2-4 s: longer than the event source's 1 s long poll, within which local-aws-sqs would hand a
// message out twice (see latestReceipts in src/local/sqs-event-source.ts).
const SHORT_BACKOFF = { firstSeconds: 4, maxSeconds: 4 };

let dataDir: string;
let emulators: Emulators;
let sqs: SQSClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'notes-retry-'));
  emulators = await startEmulators({
    dataDir,
    storagePort: 0,
    queue: { visibilityTimeoutSeconds: QUEUE_VISIBILITY_SECONDS, maxReceiveCount: 3 },
  });
  sqs = new SQSClient(await emulatorClientConfig(dataDir, emulators.endpoints.sqs));
});
afterAll(async () => {
  sqs?.destroy();
  await emulators?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** A worker over the transcription queue whose work fails (with `failure`) while `fails` says so. */
function runWorker(
  fails: (record: SQSRecord) => boolean,
  retry: SqsMessageRetry,
  failure: () => Error = () => new Error('ThrottlingException: Rate exceeded'),
) {
  const seen: SQSRecord[] = [];
  const handler = sqsWorker(
    'retryTestWorker',
    () => ({}),
    async (record) => {
      seen.push(record);
      if (fails(record)) throw failure();
    },
    () => retry,
  );
  const source = startSqsEventSource({
    sqs,
    queueUrl: emulators.queueUrls.transcription,
    queueArn: emulators.queueArns.transcription,
    handler,
    batchSize: 1,
    log: () => undefined,
  });
  return { seen, source };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe('a worker whose work failed', () => {
  it('gets the message back after the backoff, not after the queue visibility timeout, and then completes it', async () => {
    const retry = new SqsMessageRetry(sqs, [emulators.queueUrls.transcription], SHORT_BACKOFF);
    const body = JSON.stringify({ id: randomUUID() });
    const { seen, source } = runWorker((record) => record.attributes.ApproximateReceiveCount === '1', retry);
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
      );
      await waitFor(() => seen.length >= 2, 20_000);
    } finally {
      await source.stop();
    }
    expect(seen.map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([
      [body, '1'],
      [body, '2'],
    ]);
    // Completed the second time: deleted, so nothing is left to receive.
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emulators.queueUrls.transcription, WaitTimeSeconds: 1 }),
    );
    expect(Messages).toEqual([]);
  });

  it('that keeps failing is still moved to the dead-letter queue after three receives', async () => {
    const retry = new SqsMessageRetry(sqs, [emulators.queueUrls.transcription], SHORT_BACKOFF);
    const body = JSON.stringify({ id: randomUUID() });
    const { seen, source } = runWorker(() => true, retry);
    let deadLettered: string | undefined;
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
      );
      const deadline = Date.now() + 30_000;
      while (!deadLettered && Date.now() < deadline) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: emulators.queueUrls.transcriptionDlq, WaitTimeSeconds: 1 }),
        );
        for (const message of Messages) {
          deadLettered = message.Body;
          await sqs.send(
            new DeleteMessageCommand({
              QueueUrl: emulators.queueUrls.transcriptionDlq,
              ReceiptHandle: message.ReceiptHandle,
            }),
          );
        }
      }
    } finally {
      await source.stop();
    }
    expect(deadLettered).toBe(body);
    expect(seen.map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
  });

  it('is never kept away longer than the queue would keep it: a backoff beyond the visibility timeout changes nothing', async () => {
    const retry = new SqsMessageRetry(sqs, [], {
      firstSeconds: 2 * QUEUE_VISIBILITY_SECONDS,
      maxSeconds: 7200 * 2,
    });
    const record = {
      eventSourceARN: emulators.queueArns.transcription,
      receiptHandle: 'not-a-receipt-handle-of-any-message',
      attributes: { ApproximateReceiveCount: '1' },
    } as SQSRecord;
    // The queue's own timeout, without a ChangeMessageVisibility call (which this receipt handle would fail).
    await expect(retry.returnLater(record)).resolves.toBe(QUEUE_VISIBILITY_SECONDS);
  });

  it('that a provider throttles waits for the quota as new messages, spending no receive, then completes', async () => {
    const retry = new SqsMessageRetry(
      sqs,
      [emulators.queueUrls.transcription],
      SHORT_BACKOFF,
      undefined,
      SHORT_BACKOFF,
    );
    const body = JSON.stringify({ id: randomUUID() });
    const waitsOf = (record: SQSRecord) =>
      record.messageAttributes[THROTTLE_WAITS_ATTRIBUTE]?.stringValue ?? '0';
    const { seen, source } = runWorker((record) => Number(waitsOf(record)) < 3, retry, throttled);
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
      );
      await waitFor(() => seen.length >= 4, 30_000);
    } finally {
      await source.stop();
    }
    expect(seen.map((r) => [r.body, r.attributes.ApproximateReceiveCount, waitsOf(r)])).toEqual([
      [body, '1', '0'],
      [body, '1', '1'],
      [body, '1', '2'],
      [body, '1', '3'],
    ]);
  });

  it(`that a provider throttles for good waits ${MAX_THROTTLE_WAITS} times, then spends its receives and is dead-lettered`, async () => {
    const retry = new SqsMessageRetry(
      sqs,
      [emulators.queueUrls.transcription],
      SHORT_BACKOFF,
      undefined,
      SHORT_BACKOFF,
    );
    const body = JSON.stringify({ id: randomUUID() });
    const { seen, source } = runWorker(() => true, retry, throttled);
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: emulators.queueUrls.transcription, MessageBody: body }),
      );
      await waitFor(() => seen.length >= MAX_THROTTLE_WAITS + 3, 60_000);
      await sleep(5_000);
    } finally {
      await source.stop();
    }
    expect(seen.map((r) => r.attributes.ApproximateReceiveCount)).toEqual([
      ...Array.from({ length: MAX_THROTTLE_WAITS }, () => '1'),
      '1',
      '2',
      '3',
    ]);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emulators.queueUrls.transcriptionDlq, WaitTimeSeconds: 1 }),
    );
    expect(Messages.map((m) => m.Body)).toEqual([body]);
    for (const message of Messages) {
      await sqs.send(
        new DeleteMessageCommand({
          QueueUrl: emulators.queueUrls.transcriptionDlq,
          ReceiptHandle: message.ReceiptHandle,
        }),
      );
    }
  });
});

const throttled = () => new ProviderThrottledError('Bedrock throttled the request (ThrottlingException)');
