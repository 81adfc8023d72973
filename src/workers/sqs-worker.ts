import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../logging.ts';
import { observed } from '../observability.ts';

export type SqsWorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Builds the handler of an SQS-triggered worker: records are processed one by one and a record that
 * throws is reported in `batchItemFailures`, so only it is retried (and, after the bounded receives,
 * moved to the dead-letter queue). `getServices` wires only what this worker uses. Logs carry message IDs and receive counts, never bodies.
 */
export function sqsWorker<S>(
  name: string,
  getServices: () => S,
  processRecord: (record: SQSRecord, services: S) => Promise<void>,
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
          logger.warn(`${name}: attempt failed; the queue will retry`, {
            messageId: record.messageId,
            receiveCount: record.attributes.ApproximateReceiveCount,
            error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
          });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures };
    });
}
