/**
 * The local runtime's queue workers: one SQS event source per entry of `queueWorkers` (src/routes.ts),
 * each handing its messages to the same handler Lambda runs. They run in a thread of their own
 * (src/local/queue-workers-in-thread.ts) unless a test keeps them on the API's thread.
 */
import { type LocalCredentials, localAwsClientConfig } from '../adapters/aws-client-config.ts';
import { queueWorkers } from '../routes.ts';
import { stopRunningWork } from '../worker-stop.ts';
import type { QueueNames } from './emulators.ts';
import { importedOnFirstCall } from './handler-modules.ts';
import { type SqsBatchHandler, startSqsEventSource } from './sqs-event-source.ts';

/** What the workers need to know; plain data, so that it can cross to their thread. */
export interface QueueWorkerSettings {
  sqsEndpoint: string;
  credentials: LocalCredentials;
  queueUrls: QueueNames<string>;
  queueArns: QueueNames<string>;
  /** Transcriptions at once; every other worker handles one message at a time. */
  transcriptionConcurrency: number;
}

export interface QueueWorkers {
  /** Stops polling; resolves once every batch being handled is settled (finished or returned). */
  stop(): Promise<void>;
  /** Aborts the work in progress where it runs: each job goes back to `queued`, its message stays queued. */
  stopRunningWork(): void;
}

/** Starts the event sources on the calling thread's event loop. */
export async function startQueueWorkersHere(
  settings: QueueWorkerSettings,
  log: (line: string) => void,
): Promise<QueueWorkers> {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  const sqs = new SQSClient(localAwsClientConfig(settings.sqsEndpoint, settings.credentials));
  const eventSources = Object.entries(queueWorkers).map(([name, { queue }]) =>
    startSqsEventSource({
      sqs,
      queueUrl: settings.queueUrls[queue],
      queueArn: settings.queueArns[queue],
      handler: importedOnFirstCall<SqsBatchHandler>(name),
      functionName: name,
      batchSize: 1,
      concurrency: name === 'transcriptionWorker' ? settings.transcriptionConcurrency : 1,
      log,
    }),
  );
  return {
    async stop() {
      // The event sources stop before their client goes.
      await Promise.all(eventSources.map((source) => source.stop()));
      sqs.destroy();
    },
    stopRunningWork,
  };
}
