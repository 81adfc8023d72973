import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as transcriptionWorker } from '../../functions/transcriptionWorker.ts';
import { handler as uploadReceived } from '../../functions/uploadReceived.ts';
import { PocketsphinxSpeechToText } from '../../src/adapters/speech/pocketsphinx.ts';
import { claimJob } from '../../src/domain/job-transitions.ts';
import type { LocalRuntime } from '../../src/local/runtime.ts';
import { type SqsBatchHandler, startSqsEventSource } from '../../src/local/sqs-event-source.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import { parseTranscriptionMessage } from '../../src/workers/transcription-messages.ts';
import type { Api } from '../support/api.ts';
import { emulatorClientConfig } from '../support/emulator-clients.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';

/**
 * The runtime runs in this process without its transcription worker (only the uploads worker runs,
 * behind the same event-source loop the runtime uses), so the test can first play a transcription
 * worker that dies mid-job (it claims the job, then never finishes or deletes the message), and then
 * start the real one.
 */
let service: InProcessService;
let runtime: LocalRuntime;
let api: Api;
let sqs: SQSClient;
let uploads: ReturnType<typeof consume>;

beforeAll(async () => {
  service = await startInProcess({ visibilityTimeoutSeconds: 3, maxReceiveCount: 3, workers: false });
  ({ runtime, api } = service);
  sqs = new SQSClient(await emulatorClientConfig(runtime.dataDir, runtime.info.endpoints.sqs));
  uploads = consume('uploads', uploadReceived);
});
afterAll(async () => {
  await uploads?.stop();
  await service?.stop();
});

describe('faults lose nothing', () => {
  it('redelivers the work of a worker that died after claiming it, and completes it exactly once', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, contentType);

    // The dying worker: receives the request the upload's worker sent and claims the job with a 2 s
    // lease, then dies: it never renews the lease, finishes, or deletes the message.
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: runtime.info.queue_urls.transcription, WaitTimeSeconds: 10 }),
    );
    expect(Messages).toHaveLength(1);
    const [trigger] = parseTranscriptionMessage(Messages[0]?.Body ?? '');
    expect(trigger?.noteId).toBe(noteId);
    const dying = { ...getWorkerServices(), jobLeaseMs: 2_000 };
    expect(
      await claimJob(dying, trigger?.accountId ?? '', noteId, 'transcription', 'decoding'),
    ).not.toBeNull();
    const claimed = await pollUntil(async () => {
      const response = await api('GET', `/v1/notes/${noteId}/transcription`);
      return response.body.status === 'processing' ? response : null;
    });
    expect(claimed.status).toBe(202);
    expect(claimed.body.attempts).toBe(1);

    // The real worker takes over once the message becomes visible again.
    const source = consume('transcription', transcriptionWorker);
    try {
      const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
      expect(final.status).toBe(200);
      expect(String(final.body.full_text).length).toBeGreaterThan(0);
    } finally {
      await source.stop();
    }
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.transcription_job).toMatchObject({ status: 'completed', attempts: 2 });
    const objects = await getWorkerServices().blobs.listKeys(`accounts/`);
    expect(objects.filter((key) => key.includes(noteId) && key.endsWith('transcription.json'))).toHaveLength(
      1,
    );
  });

  it('ends a job whose message always fails as failed with a detail, through the dead-letter queue', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, contentType);

    // A worker whose decoder program is missing fails every attempt with a transient error.
    Object.assign(getWorkerServices(), {
      speech: new PocketsphinxSpeechToText({ ffmpegPath: '/nonexistent/ffmpeg' }),
    });
    const { handler: deadLetter } = await import('../../functions/transcriptionDeadLetter.ts');
    const sources = [consume('transcription', transcriptionWorker), consume('transcriptionDlq', deadLetter)];
    try {
      const { final, seen } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`, {
        deadlineMs: 60_000,
      });
      expect(final.status).toBe(409);
      expect(final.body).toMatchObject({ status: 'failed', note_id: noteId });
      expect(final.body.detail).toMatch(/did not complete after repeated attempts/);
      expect(seen.some((response) => response.status === 202)).toBe(true);
    } finally {
      await Promise.all(sources.map((source) => source.stop()));
    }
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.transcription_job).toMatchObject({ status: 'failed', attempts: 3 });
  });
});

/** The event-source loop the runtime uses, driving one worker from one queue. */
function consume(queue: 'uploads' | 'transcription' | 'transcriptionDlq', handler: SqsBatchHandler) {
  return startSqsEventSource({
    sqs,
    queueUrl: runtime.info.queue_urls[queue],
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
    handler,
    batchSize: 1,
    log: () => undefined,
  });
}

async function pollUntil<T>(check: () => Promise<T | null>, deadlineMs = 20_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((done) => setTimeout(done, 200));
  }
}
