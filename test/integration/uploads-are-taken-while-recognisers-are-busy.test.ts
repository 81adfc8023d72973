import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as transcriptionWorker } from '../../functions/transcriptionWorker.ts';
import { handler as uploadReceived } from '../../functions/uploadReceived.ts';
import { handler as uploadsDeadLetter } from '../../functions/uploadsDeadLetter.ts';
import { LOCAL_QUEUE_NAMES } from '../../src/local/emulators.ts';
import type { LocalRuntime } from '../../src/local/runtime.ts';
import { type SqsBatchHandler, startSqsEventSource } from '../../src/local/sqs-event-source.ts';
import type { SpeechToText } from '../../src/ports/speech-to-text.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import type { Api } from '../support/api.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload, type UploadTarget } from '../support/transcribe.ts';
import { waitUntil } from '../support/wait.ts';

/**
 * An upload is taken by its own worker (uploadReceived, on the uploads queue), not by the
 * transcription worker. The runtime runs in this process with its workers off, and the test starts
 * them behind the event-source loop the runtime uses: the uploads worker from the start, the
 * transcription worker only when the test says, which is what a transcription worker busy with other
 * recordings looks like to a new upload. Everything else is real: HTTP, the stores, the queues, the
 * S3 event of the upload, pocketsphinx.
 */
let service: InProcessService;
let runtime: LocalRuntime;
let api: Api;
let sqs: SQSClient;
let accountId: string;
/** How many times the real engine was asked to recognise a recording. */
let recognitions = 0;

type QueueName = keyof LocalRuntime['info']['queue_urls'];

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  ({ runtime, api } = service);
  sqs = new SQSClient(await emulatorClientConfig(runtime.dataDir, runtime.info.endpoints.sqs));
  accountId = (await api('GET', '/v1/account')).body.account_id as string;
  const services = getWorkerServices();
  const engine = services.speech as SpeechToText;
  const counted: SpeechToText = {
    transcribe: (...args) => {
      recognitions += 1;
      return engine.transcribe(...args);
    },
  };
  Object.assign(services, { speech: counted });
});
afterAll(async () => {
  sqs?.destroy();
  await service?.stop();
});

/** The event-source loop the runtime uses, driving one worker from one queue. */
function consume(queue: QueueName, handler: SqsBatchHandler) {
  return startSqsEventSource({
    sqs,
    queueUrl: runtime.info.queue_urls[queue],
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${LOCAL_QUEUE_NAMES[queue]}`,
    handler,
    batchSize: 1,
    log: () => undefined,
  });
}

async function messagesOn(queue: QueueName): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: runtime.info.queue_urls[queue],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

async function transcriptionJob(noteId: string) {
  return (await api('GET', `/v1/notes/${noteId}/transcription`)).body;
}

/** The S3 event of an uploaded recording, as S3 sends it again (delivery is at least once). */
function uploadEvent(noteId: string): string {
  const key = `accounts/${accountId}/notes/${noteId}/audio`;
  return JSON.stringify({
    Records: [
      { eventVersion: '2.1', eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { object: { key } } },
    ],
  });
}

describe('an uploaded recording while the transcription worker is busy', () => {
  it('is reported queued for recognition moments after its upload, and is recognised once when a worker is free, though its upload event came three times', async () => {
    const uploads = consume('uploads', uploadReceived);
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    try {
      const submitted = await submitAndUpload(api, noteId, file, contentType);
      expect(submitted.body).toMatchObject({ status: 'queued', stage: 'awaiting_upload' });

      await waitUntil(
        async () => (await transcriptionJob(noteId)).stage === 'queued',
        'the job to leave awaiting_upload',
        15_000,
      );
      const queued = await api('GET', `/v1/notes/${noteId}/transcription`);
      expect(queued.status).toBe(202);
      expect(queued.body).toMatchObject({ status: 'queued', stage: 'queued', attempts: 0 });
      const note = await api('GET', `/v1/notes/${noteId}`);
      expect((note.body.audio as { uploaded_at: number | null }).uploaded_at).toEqual(expect.any(Number));
      expect((note.body.audio as { size_bytes: number }).size_bytes).toBe((await stat(file)).size);

      // S3 delivers the same event again, twice: each finds the job queued and asks again.
      for (let i = 0; i < 2; i++) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: runtime.info.queue_urls.uploads,
            MessageBody: uploadEvent(noteId),
          }),
        );
      }
      await waitUntil(
        async () => (await messagesOn('uploads')) === 0,
        'the duplicate events to be taken',
        15_000,
      );
      expect(await transcriptionJob(noteId)).toMatchObject({ status: 'queued', stage: 'queued' });
    } finally {
      await uploads.stop();
    }

    // Workers free up: two take requests at once, as a runtime with two transcription slots does.
    const before = recognitions;
    const workers = [
      consume('transcription', transcriptionWorker),
      consume('transcription', transcriptionWorker),
    ];
    try {
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
      expect(String(final.body.full_text).length).toBeGreaterThan(0);
      await waitUntil(
        async () => (await messagesOn('transcription')) === 0,
        'every request to be taken',
        30_000,
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    expect(recognitions - before).toBe(1);
    expect((await api('GET', `/v1/notes/${noteId}`)).body.transcription_job).toMatchObject({
      status: 'completed',
      attempts: 1,
    });
    const keys = await getWorkerServices().blobs.listKeys(`accounts/${accountId}/notes/${noteId}/`);
    expect(keys.filter((key) => key.endsWith('/transcription.json'))).toHaveLength(1);
  });

  it('is removed when its note was deleted before the upload arrived, and nothing is queued for it', async () => {
    const uploads = consume('uploads', uploadReceived);
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    try {
      const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
        body: { title: 'Gone', content_type: contentType, size_bytes: (await stat(file)).size },
      });
      expect(submitted.status).toBe(202);
      expect((await api('DELETE', `/v1/notes/${noteId}`)).status).toBe(204);
      const upload = submitted.body.upload as UploadTarget;
      const put = await fetch(upload.url, {
        method: upload.method,
        headers: upload.headers,
        body: await readFile(file),
      });
      expect(put.status).toBe(200);
      const audioKey = `accounts/${accountId}/notes/${noteId}/audio`;
      await waitUntil(
        async () => (await getWorkerServices().blobs.objectSize(audioKey)) === null,
        'the orphaned recording to be removed',
        15_000,
      );
      await waitUntil(async () => (await messagesOn('uploads')) === 0, 'the event to be taken', 15_000);
      expect(await messagesOn('transcription')).toBe(0);
    } finally {
      await uploads.stop();
    }
  });
});

describe('an upload that could not be taken after repeated attempts', () => {
  it('fails its job with a detail, and submitting the note again transcribes the stored recording without a new upload', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    // No uploads worker runs: the event waits on the uploads queue, as after a worker that failed.
    await submitAndUpload(api, noteId, file, contentType);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.info.queue_urls.uploads, WaitTimeSeconds: 10 }),
    );
    expect(Messages).toHaveLength(1);
    const [event] = Messages;
    await sqs.send(
      new DeleteMessageCommand({
        QueueUrl: runtime.info.queue_urls.uploads,
        ReceiptHandle: event?.ReceiptHandle,
      }),
    );
    // What the queue's redrive does after the last receive: the same message on the dead-letter queue.
    await sqs.send(
      new SendMessageCommand({ QueueUrl: runtime.info.queue_urls.uploadsDlq, MessageBody: event?.Body }),
    );

    const deadLetters = consume('uploadsDlq', uploadsDeadLetter);
    try {
      await waitUntil(
        async () => (await transcriptionJob(noteId)).status === 'failed',
        'the job to fail',
        15_000,
      );
    } finally {
      await deadLetters.stop();
    }
    const failed = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(failed.status).toBe(409);
    expect(failed.body.detail).toMatch(/could not be queued for transcription.*Submit the note again/);

    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'Again', content_type: contentType, size_bytes: (await stat(file)).size },
    });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'queued', stage: 'queued' });
    expect(again.body).not.toHaveProperty('upload');
    const worker = consume('transcription', transcriptionWorker);
    try {
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
    } finally {
      await worker.stop();
    }
  });
});
