import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../logging.ts';
import { observed } from '../observability.ts';
import { ProviderThrottledError } from '../ports/generation-errors.ts';
import { storageFaultOf } from '../ports/storage-faults.ts';
import { configuredMessageRetry, type MessageRetry } from './message-retry.ts';

export type SqsWorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Builds the handler of an SQS-triggered worker: records are processed one by one and a record that
 * throws is reported in `batchItemFailures`, so only it is retried (and, after the bounded receives,
 * moved to the dead-letter queue). Before that, its visibility is changed so that it comes back
 * after a backoff of seconds to minutes (src/workers/retry-backoff.ts), not after the queue's
 * visibility timeout. A storage fault (a full disk) instead waits for space without spending a
 * receive where that is enabled (src/workers/storage-wait.ts). `getServices` wires only what this
 * worker uses. Logs carry message IDs and receive counts, never bodies.
 */
export function sqsWorker<S>(
  name: string,
  getServices: () => S,
  processRecord: (record: SQSRecord, services: S) => Promise<void>,
  getRetry: () => MessageRetry = configuredMessageRetry,
): SqsWorkerHandler {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(observed())
    .handler(async (event) => {
      const services = getServices();
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        try {
          await processRecord(record, services);
        } catch (error) {
          if (await waitedWithoutAReceive(name, getRetry, record, error)) continue;
          const retryInSeconds = await returnLater(getRetry, record);
          logger.warn(`${name}: attempt failed; the queue will retry`, {
            messageId: record.messageId,
            receiveCount: record.attributes.ApproximateReceiveCount,
            ...(retryInSeconds === undefined ? {} : { retryInSeconds }),
            error: errorFields(error),
          });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures };
    });
}

/**
 * Work that only needs time: a storage fault, where storage waits for space (storage-wait.ts), or a
 * provider throttling (throttle-wait.ts). The message was sent again, delayed, and this one is
 * reported handled, so the wait spends none of its receives. False when there is no such wait (or it
 * has waited enough), or the message could not be sent again: the ordinary retry applies.
 */
async function waitedWithoutAReceive(
  name: string,
  getRetry: () => MessageRetry,
  record: SQSRecord,
  error: unknown,
): Promise<boolean> {
  const wait = waitFor(error, getRetry);
  if (!wait) return false;
  try {
    const retryInSeconds = await wait.send(record);
    if (retryInSeconds === undefined || retryInSeconds === null) return false;
    logger.warn(`${name}: ${wait.why}`, {
      messageId: record.messageId,
      retryInSeconds,
      error: errorFields(error),
    });
    return true;
  } catch (sendError) {
    logger.warn(`could not put the message back to wait for ${wait.forWhat}`, {
      messageId: record.messageId,
      error: errorFields(sendError),
    });
    return false;
  }
}

interface Wait {
  send(record: SQSRecord): Promise<number | null | undefined> | undefined;
  why: string;
  forWhat: string;
}

function waitFor(error: unknown, getRetry: () => MessageRetry): Wait | undefined {
  const fault = storageFaultOf(error);
  if (fault) {
    return {
      send: (record) => getRetry().waitForStorage?.(record),
      why: `storage is ${fault}; the work waits for space`,
      forWhat: 'storage',
    };
  }
  if (error instanceof ProviderThrottledError) {
    return {
      send: (record) => getRetry().waitForThrottle?.(record),
      why: 'the provider is throttling; the work waits for its quota',
      forWhat: 'the quota',
    };
  }
  return undefined;
}

/** Without the visibility change the message still comes back, after the queue's visibility timeout. */
async function returnLater(getRetry: () => MessageRetry, record: SQSRecord): Promise<number | undefined> {
  try {
    return await getRetry().returnLater(record);
  } catch (error) {
    logger.warn('could not shorten the wait before the retry', {
      messageId: record.messageId,
      error: errorFields(error),
    });
    return undefined;
  }
}

function errorFields(error: unknown) {
  return error instanceof Error ? { name: error.name, message: error.message } : String(error);
}
