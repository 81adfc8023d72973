import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTranscription } from '../../src/domain/transcription-worker.ts';
import type { RecognitionProgress, RecognitionResult, SpeechToText } from '../../src/ports/speech-to-text.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import type { Api } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { submitAndUpload } from '../support/transcribe.ts';

let service: InProcessService;
let api: Api;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  ({ api } = service);
});
afterAll(() => service?.stop());

/**
 * An engine that reports the progress it is told to, so the test controls the pace of a long
 * recognition; what is under test is how the worker publishes progress on the job.
 */
function steppedEngine() {
  let report: (progress: RecognitionProgress) => Promise<void> | void = () => undefined;
  let finish: (result: RecognitionResult) => void = () => undefined;
  const engine: SpeechToText = {
    transcribe: (_path, onProgress) => {
      report = onProgress ?? report;
      return new Promise((resolve) => {
        finish = resolve;
      });
    },
  };
  return {
    engine,
    report: (progress: RecognitionProgress) => report(progress),
    finish: (r: RecognitionResult) => finish(r),
  };
}

describe('a long transcription shows its progress on the job', () => {
  it('publishes the stage and a progress figure while recognising, and drops it once completed', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const noteId = randomUUID();
    await submitAndUpload(api, noteId, file, contentType);
    const accountId = (await api('GET', '/v1/account')).body.account_id as string;
    const stepped = steppedEngine();
    const running = runTranscription(
      { ...getWorkerServices(), speech: stepped.engine },
      { accountId, noteId },
    );

    await new Promise((done) => setTimeout(done, 200));
    await stepped.report({ stage: 'recognizing', fraction: 0.25 });
    const quarter = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(quarter.body).toMatchObject({ status: 'processing', stage: 'recognizing', progress: 0.25 });

    // Within the write interval, further ticks are not written; a later one is.
    await stepped.report({ stage: 'recognizing', fraction: 0.3 });
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body.progress).toBe(0.25);
    await new Promise((done) => setTimeout(done, 3100));
    await stepped.report({ stage: 'recognizing', fraction: 0.8 });
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body.progress).toBe(0.8);

    stepped.finish({ words: [{ text: 'done', start_ms: 0, end_ms: 500 }], duration_ms: 1000 });
    expect(await running).toBe('completed');
    const note = await api('GET', `/v1/notes/${noteId}`);
    expect(note.body.transcription_job).toMatchObject({ status: 'completed' });
    expect(note.body.transcription_job).not.toHaveProperty('progress');
  });
});
