/**
 * The local equivalent of a Lambda SQS event source mapping with `ReportBatchItemFailures`: one
 * long-poll loop per queue, handing batches to the same handler Lambda would run.
 *
 * Semantics kept from Lambda: records built as Lambda builds them; messages listed in
 * `batchItemFailures` stay on the queue and come back after the visibility timeout (whose expiry,
 * with the queue's redrive policy, is what moves them to the DLQ); if the handler throws, or
 * reports an item identifier that is not in the batch, the whole batch is left for redelivery.
 * Visibility is never changed here: as on Lambda, a handler that wants a failed message back sooner
 * changes its visibility itself (src/workers/sqs-worker.ts does, through the same SQS endpoint).
 * `concurrency` plays the part of the function's concurrency (the mapping's `maxConcurrency`): that many
 * loops poll and handle batches side by side, each one batch at a time.
 * Differences: no batching window, and no timeout is enforced on the handler.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSMessageAttributes,
  SQSRecord,
  SQSRecordAttributes,
} from 'aws-lambda';
import { errorLine } from './error-line.ts';
import { lambdaContext } from './lambda-context.ts';

// biome-ignore lint/suspicious/noConfusingVoidType: the same return type as aws-lambda's SQSHandler, so real handlers fit.
export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsEventSourceOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsBatchHandler;
  /** Messages per handler call, 1..10 (Lambda's default is 10). */
  batchSize?: number;
  /** Handler calls at once, each with its own batch, 1..1000 (default 1). */
  concurrency?: number;
  /** Long-poll wait per ReceiveMessage, 0..20 s; stop() lets the current poll finish, so it waits up to this long. */
  waitTimeSeconds?: number;
  /** Shown to the handler through its context (function name, ARN, log group). */
  functionName?: string;
  /** What getRemainingTimeInMillis counts down from (not enforced). */
  timeoutSeconds?: number;
  /** One-line operational messages (never message bodies). */
  log?: (line: string) => void;
}

export interface SqsEventSource {
  /** Stops polling and resolves once the batches being handled (if any) are settled. */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 5_000;

export function startSqsEventSource(options: SqsEventSourceOptions): SqsEventSource {
  const {
    sqs,
    queueUrl,
    queueArn,
    handler,
    batchSize = 10,
    waitTimeSeconds = 1,
    functionName = `local-${queueName(queueArn)}-consumer`,
    timeoutSeconds = 900,
    concurrency = 1,
  } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new RangeError(`batchSize must be an integer from 1 to 10, got ${batchSize}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
    throw new RangeError(`concurrency must be an integer from 1 to 1000, got ${concurrency}`);
  }
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 0 || waitTimeSeconds > 20) {
    throw new RangeError(`waitTimeSeconds must be an integer from 0 to 20, got ${waitTimeSeconds}`);
  }
  const source = `sqs event source ${queueName(queueArn)}`;
  const awsRegion = queueArn.split(':')[3] ?? 'us-east-1';
  const stopping = new AbortController();

  async function poll(): Promise<void> {
    let backoffMs = 0;
    while (!stopping.signal.aborted) {
      let messages: Message[];
      try {
        const output = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
            // Deprecated in the SDK, but local-aws-sqs only reads this one.
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          // Not aborted on stop(): local-aws-sqs keeps an abandoned long poll running and still takes
          // messages for it, which would then sit invisible until the visibility timeout.
        );
        messages = output.Messages ?? [];
        backoffMs = 0;
      } catch (error) {
        // The emulator went away during shutdown.
        if (stopping.signal.aborted) return;
        backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, backoffMs * 2));
        log(`${source}: receive failed (${errorLine(error)}), retrying in ${backoffMs} ms`);
        await sleep(backoffMs, undefined, { signal: stopping.signal }).catch(() => undefined);
        continue;
      }
      // Once received, a batch is always handled, even if stop() came meanwhile: its messages are
      // invisible now and would otherwise only come back after the visibility timeout.
      if (messages.length > 0) await handleBatch(latestReceipts(messages));
    }
  }

  async function handleBatch(messages: Message[]): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => toSqsRecord(m, queueArn, awsRegion)) };
    const ids = event.Records.map((r) => r.messageId);
    let failedIds: Set<string>;
    try {
      const response = await handler(event, lambdaContext(functionName, randomUUID(), timeoutSeconds * 1000));
      const failures = reportedFailures(response || undefined, ids);
      if (failures === 'invalid') {
        log(
          `${source}: handler reported an item identifier not in the batch; all ${ids.length} left for retry`,
        );
        return;
      }
      failedIds = failures;
    } catch (error) {
      log(`${source}: handler failed for message(s) ${ids.join(', ')}: ${errorLine(error)}`);
      return;
    }
    const done = event.Records.filter((r) => !failedIds.has(r.messageId));
    if (done.length > 0) await deleteMessages(done);
  }

  async function deleteMessages(records: SQSRecord[]): Promise<void> {
    try {
      const { Failed = [] } = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      for (const failure of Failed) {
        const record = records[Number(failure.Id)];
        log(
          `${source}: could not delete message ${record?.messageId}: ${failure.Code} ${failure.Message ?? ''}`,
        );
      }
    } catch (error) {
      // The messages come back after their visibility timeout: a handler must be idempotent anyway.
      log(`${source}: could not delete ${records.length} handled message(s): ${errorLine(error)}`);
    }
  }

  // poll() handles its own errors; this only guards against a bug turning into an unhandled rejection.
  const running = Promise.all(
    Array.from({ length: concurrency }, () =>
      poll().catch((error: unknown) => log(`${source}: stopped unexpectedly: ${errorLine(error)}`)),
    ),
  );
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}

/**
 * One entry per message, the latest receipt winning. local-aws-sqs can return a message twice in one
 * long poll when its visibility timeout ends before the poll does (visibility timeout <= wait time +
 * 40 ms); SQS never does, and a handler must not see a duplicate within a batch.
 */
function latestReceipts(messages: Message[]): Message[] {
  const byId = new Map<string, Message>();
  for (const message of messages) byId.set(message.MessageId ?? '', message);
  return [...byId.values()];
}

/**
 * The message IDs to keep on the queue; no response (or no list) means every message succeeded.
 * As in Lambda, an identifier that is empty or not in the batch fails the whole batch ('invalid').
 */
function reportedFailures(
  response: SQSBatchResponse | undefined,
  batchIds: string[],
): Set<string> | 'invalid' {
  const failed = new Set<string>();
  for (const { itemIdentifier } of response?.batchItemFailures ?? []) {
    if (typeof itemIdentifier !== 'string' || !batchIds.includes(itemIdentifier)) return 'invalid';
    failed.add(itemIdentifier);
  }
  return failed;
}

/** What Lambda's SQS event source hands a function for one received message. */
export function toSqsRecord(message: Message, queueArn: string, awsRegion: string): SQSRecord {
  const attributes: Record<string, string> = { ...message.Attributes };
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
    } satisfies SQSRecordAttributes,
    messageAttributes: toLambdaMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

/** Lambda lower-cases the fields, base64-encodes binary values and always includes the list fields. */
function toLambdaMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    result[name] = {
      dataType: value.DataType ?? 'String',
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      ...(value.StringValue !== undefined && { stringValue: value.StringValue }),
      ...(value.BinaryValue !== undefined && {
        binaryValue: Buffer.from(value.BinaryValue).toString('base64'),
      }),
    };
  }
  return result;
}

function queueName(queueArn: string): string {
  return queueArn.split(':').at(-1) ?? queueArn;
}
