import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { StartTranscriptionJobCommand } from '@aws-sdk/client-transcribe';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as transcriptionCompleted } from '../../functions/transcriptionCompleted.ts';
import { TranscribeSpeechToText } from '../../src/adapters/transcribe/transcribe-speech-to-text.ts';
import { recordArrivedUpload } from '../../src/domain/arrived-uploads.ts';
import { runNumber } from '../../src/domain/job.ts';
import { MAX_TRANSIENT_RUNS, runTranscription } from '../../src/domain/transcription-worker.ts';
import type { LocalRuntime } from '../../src/local/runtime.ts';
import { getWorkerServices } from '../../src/wiring/worker-services.ts';
import type { Api } from '../support/api.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { submitAndUpload } from '../support/transcribe.ts';

/**
 * The AWS transcription path, run against the real local stores: the worker starts an Amazon
 * Transcribe job and returns; the "Transcribe Job State Change" event finishes the note. Transcribe
 * cannot run offline, so only its client is replaced: it records the StartTranscriptionJob commands,
 * and the test writes the output document (in the shape AWS documents) where Transcribe would.
 */
const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'transcribe');
const PREFIX = 'notes-test-';
let service: InProcessService;
let runtime: LocalRuntime;
let api: Api;
const started: StartTranscriptionJobCommand['input'][] = [];
let transcribe: TranscribeSpeechToText;

const recordingClient = {
  send: async (command: StartTranscriptionJobCommand) => {
    started.push(command.input);
    return { $metadata: {} };
  },
};

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  ({ runtime, api } = service);
  transcribe = new TranscribeSpeechToText(recordingClient, getWorkerServices().blobs, {
    bucket: runtime.info.bucket_name,
    jobPrefix: PREFIX,
    languageCode: 'en-US',
  });
  Object.assign(getWorkerServices(), { speech: transcribe, engineName: 'amazon-transcribe' });
});
afterAll(() => service?.stop());

async function fixtureEvent(file: string, jobName: string): Promise<unknown> {
  const event = JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as {
    detail: Record<string, unknown>;
  };
  event.detail.TranscriptionJobName = jobName;
  return event;
}

/** Submitted and uploaded, and the upload taken as the uploads worker takes it (no workers run here). */
async function uploadedNote(
  title?: string,
  extra?: Record<string, unknown>,
): Promise<{ accountId: string; noteId: string }> {
  const { file, contentType } = await speechFixture('slt', 'wav');
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, file, contentType, title, extra);
  const accountId = (await api('GET', '/v1/account')).body.account_id as string;
  expect(await recordArrivedUpload(getWorkerServices(), accountId, noteId)).toBe('queued');
  return { accountId, noteId };
}

const invoke = (event: unknown) => transcriptionCompleted(event, {} as Context);

/** The Transcribe job name of a note's current run (its job's creation time and attempt). */
async function jobName(accountId: string, noteId: string, attempts?: number): Promise<string> {
  const job = await getWorkerServices().notes.getJob(accountId, noteId, 'transcription');
  if (!job) throw new Error('the note has no transcription job');
  return `${PREFIX}${accountId}.${noteId}.${runNumber({ ...job, attempts: attempts ?? job.attempts })}`;
}

describe('transcription through Amazon Transcribe', () => {
  it('starts a speaker-labelled job for the upload and finishes the note from the completion event', async () => {
    const { accountId, noteId } = await uploadedNote();
    const outcome = await runTranscription(getWorkerServices(), { accountId, noteId });
    expect(outcome).toBe('started');
    const audioKey = `accounts/${accountId}/notes/${noteId}/audio`;
    const name = await jobName(accountId, noteId);
    const run = name.split('.').at(-1);
    const outputKey = `accounts/${accountId}/notes/${noteId}/transcribe-output-${run}.json`;
    expect(started.at(-1)).toMatchObject({
      TranscriptionJobName: name,
      Media: { MediaFileUri: `s3://${runtime.info.bucket_name}/${audioKey}` },
      OutputBucketName: runtime.info.bucket_name,
      OutputKey: outputKey,
      Settings: { ShowSpeakerLabels: true },
    });
    const pending = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(pending.status).toBe(202);
    expect(pending.body).toMatchObject({ status: 'processing', stage: 'recognizing', attempts: 1 });

    // Transcribe writes its output, then EventBridge delivers the state change.
    await getWorkerServices().blobs.putJson(
      outputKey,
      JSON.parse(await readFile(join(FIXTURES, 'two-speakers.json'), 'utf8')),
    );
    await invoke(await fixtureEvent('event-completed.json', name));

    const done = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(done.status).toBe(200);
    const segments = done.body.conversation_segments as Array<{ speaker: string; text: string }>;
    expect(new Set(segments.map((segment) => segment.speaker))).toEqual(new Set(['Speaker 1', 'Speaker 2']));
    expect(done.body.full_text).toMatch(/Friday\?/);
    expect(done.body.engine).toBe('amazon-transcribe');
    expect(await getWorkerServices().blobs.listKeys(`accounts/${accountId}/notes/${noteId}/`)).toEqual([
      audioKey,
      `accounts/${accountId}/notes/${noteId}/transcription.json`,
    ]);

    // A duplicate delivery of the same event changes nothing.
    await invoke(await fixtureEvent('event-completed.json', name));
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).body).toEqual(done.body);
  });

  it('passes the submitter’s expected number of speakers to Transcribe', async () => {
    const { accountId, noteId } = await uploadedNote('Panel', { speakers_expected: 3 });
    await runTranscription(getWorkerServices(), { accountId, noteId });
    expect(started.at(-1)?.Settings).toMatchObject({ ShowSpeakerLabels: true, MaxSpeakerLabels: 3 });
  });

  it('asks Transcribe for one speaker, and gives every word to Speaker 1, when one is expected', async () => {
    const { accountId, noteId } = await uploadedNote('Monologue', { speakers_expected: 1 });
    await runTranscription(getWorkerServices(), { accountId, noteId });
    expect(started.at(-1)?.Settings).toEqual({ ShowSpeakerLabels: false });
    const name = await jobName(accountId, noteId);
    // The fixture output has two speakers: with a one-speaker hint the words are all Speaker 1's.
    const run = name.split('.').at(-1);
    await getWorkerServices().blobs.putJson(
      `accounts/${accountId}/notes/${noteId}/transcribe-output-${run}.json`,
      JSON.parse(await readFile(join(FIXTURES, 'two-speakers.json'), 'utf8')),
    );
    await invoke(await fixtureEvent('event-completed.json', name));
    const done = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(done.status).toBe(200);
    const speakers = new Set(
      (done.body.conversation_segments as { speaker_label: string }[]).map(
        (segment) => segment.speaker_label,
      ),
    );
    expect(speakers).toEqual(new Set(['Speaker 1']));
  });

  it('asks Transcribe to queue the job with the data access role, and a job it ran hours later still finishes the note', async () => {
    const role = 'arn:aws:iam::111122223333:role/notes-test-transcribe-data-access';
    const services = getWorkerServices();
    const queueing = new TranscribeSpeechToText(recordingClient, services.blobs, {
      bucket: runtime.info.bucket_name,
      jobPrefix: PREFIX,
      languageCode: 'en-US',
      dataAccessRoleArn: role,
    });
    const { speech, now } = services;
    Object.assign(services, { speech: queueing });
    try {
      const { accountId, noteId } = await uploadedNote();
      await runTranscription(services, { accountId, noteId });
      expect(started.at(-1)?.JobExecutionSettings).toEqual({
        AllowDeferredExecution: true,
        DataAccessRoleArn: role,
      });
      // Transcribe's queue held the job past its 6-hour lease; nothing else touched the note meanwhile.
      Object.assign(services, { now: () => now() + 7 * 60 * 60 * 1000 });
      const name = await jobName(accountId, noteId);
      await services.blobs.putJson(
        `accounts/${accountId}/notes/${noteId}/transcribe-output-${name.split('.').at(-1)}.json`,
        JSON.parse(await readFile(join(FIXTURES, 'two-speakers.json'), 'utf8')),
      );
      await invoke(await fixtureEvent('event-completed.json', name));
      const done = await api('GET', `/v1/notes/${noteId}/transcription`);
      expect(done.status).toBe(200);
      expect(done.body.full_text).toMatch(/Friday\?/);
    } finally {
      Object.assign(services, { speech, now });
    }
  });

  it('ignores the event of an earlier attempt', async () => {
    const { accountId, noteId } = await uploadedNote();
    await runTranscription(getWorkerServices(), { accountId, noteId });
    const first = await jobName(accountId, noteId);
    // While Transcribe works on attempt 1, a redelivered message leaves it alone...
    expect(await runTranscription(getWorkerServices(), { accountId, noteId })).toBe('skipped');
    // ...but once its lease has run out (the job never reported back), a redelivery claims
    // attempt 2 and starts a second job.
    const later = () => Date.now() + 7 * 60 * 60 * 1000;
    await runTranscription({ ...getWorkerServices(), now: later }, { accountId, noteId });
    const job = await getWorkerServices().notes.getJob(accountId, noteId, 'transcription');
    expect(job).toMatchObject({ status: 'processing', attempts: 2 });
    expect(started.at(-1)?.TranscriptionJobName).toBe(await jobName(accountId, noteId));
    await invoke(await fixtureEvent('event-completed.json', first));
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(202);
  });

  it('ignores the event of a run of a job that was deleted and made again: attempts start over, run numbers do not', async () => {
    const { accountId, noteId } = await uploadedNote();
    await runTranscription(getWorkerServices(), { accountId, noteId });
    const deletedRun = await jobName(accountId, noteId);
    expect((await api('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    const again = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'again', content_type: 'audio/wav', size_bytes: 10 },
    });
    expect(again.status).toBe(202);
    await runTranscription(getWorkerServices(), { accountId, noteId });
    const newRun = await jobName(accountId, noteId);
    expect((await getWorkerServices().notes.getJob(accountId, noteId, 'transcription'))?.attempts).toBe(1);
    expect(newRun).not.toBe(deletedRun);
    expect(started.at(-1)?.TranscriptionJobName).toBe(newRun);
    await invoke(await fixtureEvent('event-completed.json', deletedRun));
    expect((await api('GET', `/v1/notes/${noteId}/transcription`)).status).toBe(202);
  });

  it('fails the job with the provider’s reason, and discards media Transcribe cannot use', async () => {
    const { accountId, noteId } = await uploadedNote();
    await runTranscription(getWorkerServices(), { accountId, noteId });
    await invoke(await fixtureEvent('event-failed.json', await jobName(accountId, noteId)));
    const failed = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(failed.status).toBe(409);
    expect(failed.body).toMatchObject({ status: 'failed', note_id: noteId });
    expect(failed.body.detail).toMatch(/media file length is too small/);
    expect(await getWorkerServices().blobs.listKeys(`accounts/${accountId}/notes/${noteId}/`)).toEqual([]);
    const retry = await api('POST', `/v1/notes/${noteId}/transcription`, {
      body: { title: 'x', content_type: 'audio/wav', size_bytes: 10 },
    });
    expect(retry.body).toMatchObject({ stage: 'awaiting_upload' });
  });

  it('runs a job Transcribe failed on its side again, up to three runs, then fails it with the reason and keeps the recording', async () => {
    const { accountId, noteId } = await uploadedNote();
    for (let run = 1; run <= MAX_TRANSIENT_RUNS; run++) {
      expect(await runTranscription(getWorkerServices(), { accountId, noteId })).toBe('started');
      const event = (await fixtureEvent('event-failed.json', await jobName(accountId, noteId))) as {
        detail: Record<string, unknown>;
      };
      event.detail.FailureReason = 'Internal failure';
      await invoke(event);
      if (run < MAX_TRANSIENT_RUNS) {
        expect(await getWorkerServices().notes.getJob(accountId, noteId, 'transcription')).toMatchObject({
          status: 'queued',
          stage: 'queued',
          attempts: run,
        });
      }
    }
    const failed = await api('GET', `/v1/notes/${noteId}/transcription`);
    expect(failed.body).toMatchObject({ status: 'failed' });
    expect((await getWorkerServices().notes.getJob(accountId, noteId, 'transcription'))?.attempts).toBe(
      MAX_TRANSIENT_RUNS,
    );
    expect(failed.body.detail).toMatch(/Internal failure/);
    expect(await getWorkerServices().blobs.listKeys(`accounts/${accountId}/notes/${noteId}/`)).toEqual([
      `accounts/${accountId}/notes/${noteId}/audio`,
    ]);
  });

  it('ignores events of jobs that are not this deployment’s', async () => {
    await expect(
      invoke(await fixtureEvent('event-completed.json', 'someone-elses-job')),
    ).resolves.toBeUndefined();
  });
});
