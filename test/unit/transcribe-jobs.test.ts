import { readFileSync } from 'node:fs';
import {
  BadRequestException,
  ConflictException,
  GetTranscriptionJobCommand,
  type GetTranscriptionJobCommandOutput,
  LimitExceededException,
  StartTranscriptionJobCommand,
  type StartTranscriptionJobCommandOutput,
  TranscribeClient,
} from '@aws-sdk/client-transcribe';
import { describe, expect, it, vi } from 'vitest';
import { TranscribeJobs, type TranscribeSender } from '../../src/adapters/transcribe/transcribe-jobs.ts';

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/transcribe/${name}`, import.meta.url), 'utf8'));
}

const account = '8f14e45f-ceea-4e7a-9c4b-2c1f0e7a9b11';
const note = '3c59dc04-8e8d-4f4b-9c1e-7d1e5a0c2b22';
const jobName = `notes-${account}.${note}.1`;
const request = {
  jobName,
  mediaUri: `s3://notes-audio/accounts/${account}/notes/${note}/audio`,
  outputBucket: 'notes-transcribe-output',
  outputKey: `jobs/${jobName}.json`,
  languageCode: 'en-US',
};

/** A StartTranscriptionJob response as the API reference shows it: the job, queued or in progress. */
const startedResponse: StartTranscriptionJobCommandOutput = {
  $metadata: { httpStatusCode: 200, requestId: 'c2b4a2f0-6a3e-4c5e-9d1f-0a1b2c3d4e5f' },
  TranscriptionJob: {
    TranscriptionJobName: jobName,
    TranscriptionJobStatus: 'IN_PROGRESS',
    LanguageCode: 'en-US',
    Media: { MediaFileUri: request.mediaUri },
    CreationTime: new Date('2026-11-21T10:00:03Z'),
    StartTime: new Date('2026-11-21T10:00:03Z'),
    Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 10 },
  },
};

function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing in the fixture');
  return value;
}

function fakeClient(outcome: () => Promise<StartTranscriptionJobCommandOutput>) {
  const send = vi.fn((_command: StartTranscriptionJobCommand) => outcome());
  return { jobs: new TranscribeJobs({ send }), send };
}

function sentInput(send: ReturnType<typeof fakeClient>['send']) {
  const command = send.mock.calls[0]?.[0];
  expect(command).toBeInstanceOf(StartTranscriptionJobCommand);
  return command?.input;
}

describe('TranscribeJobs.start', () => {
  it('accepts a real TranscribeClient', () => {
    const client: TranscribeSender = new TranscribeClient({ region: 'eu-west-1' });
    expect(new TranscribeJobs(client)).toBeInstanceOf(TranscribeJobs);
  });

  it('sends StartTranscriptionJob with speaker labels and the output location', async () => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await expect(jobs.start(request)).resolves.toBe('started');
    expect(send).toHaveBeenCalledTimes(1);
    expect(sentInput(send)).toEqual({
      TranscriptionJobName: jobName,
      Media: { MediaFileUri: request.mediaUri },
      OutputBucketName: 'notes-transcribe-output',
      OutputKey: `jobs/${jobName}.json`,
      LanguageCode: 'en-US',
      Settings: { ShowSpeakerLabels: true, MaxSpeakerLabels: 10 },
    });
  });

  it('asks for no speaker labels when one speaker is expected (MaxSpeakerLabels starts at 2)', async () => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await jobs.start({ ...request, maxSpeakers: 1 });
    expect(sentInput(send)?.Settings).toEqual({ ShowSpeakerLabels: false });
  });

  it("asks Transcribe to identify the language for 'auto' and passes maxSpeakers", async () => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await jobs.start({ ...request, languageCode: 'auto', maxSpeakers: 4 });
    const input = sentInput(send);
    expect(input?.IdentifyLanguage).toBe(true);
    expect(input).not.toHaveProperty('LanguageCode');
    expect(input?.Settings).toEqual({ ShowSpeakerLabels: true, MaxSpeakerLabels: 4 });
  });

  const dataAccessRoleArn = 'arn:aws:iam::111122223333:role/notes-prod-transcribe-data-access';

  it('with a data access role, asks Transcribe to queue the job past the concurrent-job quota', async () => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await jobs.start({ ...request, dataAccessRoleArn });
    expect(sentInput(send)?.JobExecutionSettings).toEqual({
      AllowDeferredExecution: true,
      DataAccessRoleArn: dataAccessRoleArn,
    });
  });

  it('without a data access role, sends no JobExecutionSettings (Transcribe requires both fields)', async () => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await jobs.start(request);
    expect(sentInput(send)).not.toHaveProperty('JobExecutionSettings');
  });

  it('counts a job Transcribe queued (status QUEUED, no start time yet) as started', async () => {
    // The response shape the API reference shows for a deferred job: queued, not yet running.
    const { StartTime: _notYet, ...waiting } = defined(startedResponse.TranscriptionJob);
    const queued: StartTranscriptionJobCommandOutput = {
      ...startedResponse,
      TranscriptionJob: {
        ...waiting,
        TranscriptionJobStatus: 'QUEUED',
        JobExecutionSettings: { AllowDeferredExecution: true, DataAccessRoleArn: dataAccessRoleArn },
      },
    };
    const { jobs } = fakeClient(async () => queued);
    await expect(jobs.start({ ...request, dataAccessRoleArn })).resolves.toBe('started');
  });

  it('rethrows a LimitExceededException of a full job queue so that the queue retries later', async () => {
    const full = new LimitExceededException({
      message: 'The job queue is full. Wait for some jobs to complete and try again.',
      $metadata: { httpStatusCode: 400 },
    });
    const { jobs } = fakeClient(() => Promise.reject(full));
    await expect(jobs.start({ ...request, dataAccessRoleArn })).rejects.toBe(full);
  });

  it('treats a ConflictException (job name taken) as already started', async () => {
    const conflict = new ConflictException({
      message: 'The requested job name already exists. Use a different job name.',
      $metadata: { httpStatusCode: 400 },
    });
    const { jobs } = fakeClient(() => Promise.reject(conflict));
    await expect(jobs.start(request)).resolves.toBe('already_started');
  });

  it('rethrows LimitExceededException so that the queue retries later', async () => {
    const limit = new LimitExceededException({
      message:
        "You've either sent too many requests or your input file is too long. Wait before retrying your request, or use a smaller file and try your request again.",
      $metadata: { httpStatusCode: 400 },
    });
    const { jobs } = fakeClient(() => Promise.reject(limit));
    await expect(jobs.start(request)).rejects.toBe(limit);
  });

  it('rethrows BadRequestException', async () => {
    const bad = new BadRequestException({
      message: "1 validation error detected: Value 'xx-XX' at 'languageCode' failed to satisfy constraint",
      $metadata: { httpStatusCode: 400 },
    });
    const { jobs } = fakeClient(() => Promise.reject(bad));
    await expect(jobs.start({ ...request, languageCode: 'xx-XX' })).rejects.toBe(bad);
  });

  it.each([
    ['a job name with a slash', { jobName: 'notes/1' }, /job name/],
    ['an https media URI', { mediaUri: 'https://example.com/a.mp3' }, /s3:\/\//],
    ['fewer than one speaker', { maxSpeakers: 0 }, /maxSpeakers/],
  ])('refuses %s before calling AWS', async (_name, change, message) => {
    const { jobs, send } = fakeClient(async () => startedResponse);
    await expect(jobs.start({ ...request, ...change })).rejects.toThrow(message);
    expect(send).not.toHaveBeenCalled();
  });
});

describe('job names', () => {
  it('round-trips account, note and attempt, also with dots in the prefix', () => {
    for (const prefix of ['notes-', 'notes.prod.', '']) {
      const name = TranscribeJobs.jobNameFor(prefix, account, note, 3);
      expect(name).toMatch(/^[0-9a-zA-Z._-]+$/);
      expect(TranscribeJobs.parseJobName(prefix, name)).toEqual({
        accountId: account,
        noteId: note,
        attempt: 3,
      });
    }
    expect(TranscribeJobs.jobNameFor('notes-', account, note, 1)).toBe(jobName);
  });

  it('allows exactly 200 characters and refuses 201', () => {
    const fixedLength = `${account}.${note}.7`.length;
    const longest = TranscribeJobs.jobNameFor('p'.repeat(200 - fixedLength), account, note, 7);
    expect(longest).toHaveLength(200);
    expect(TranscribeJobs.parseJobName('p'.repeat(200 - fixedLength), longest)?.attempt).toBe(7);
    expect(() => TranscribeJobs.jobNameFor('p'.repeat(201 - fixedLength), account, note, 7)).toThrow(/200/);
  });

  it.each([
    ['an ID with the separator', () => TranscribeJobs.jobNameFor('notes-', 'a.b', note, 1)],
    ['an ID with a space', () => TranscribeJobs.jobNameFor('notes-', account, 'a b', 1)],
    ['a prefix with a slash', () => TranscribeJobs.jobNameFor('notes/', account, note, 1)],
    ['a negative attempt', () => TranscribeJobs.jobNameFor('notes-', account, note, -1)],
    ['a fractional attempt', () => TranscribeJobs.jobNameFor('notes-', account, note, 1.5)],
  ])('refuses %s', (_name, make) => {
    expect(make).toThrow();
  });

  it.each([
    ['another prefix', `other-${account}.${note}.1`],
    ['too few parts', `notes-${account}.${note}`],
    ['too many parts', `notes-${account}.${note}.1.2`],
    ['a non-numeric attempt', `notes-${account}.${note}.x`],
    ['a non-canonical attempt', `notes-${account}.${note}.01`],
    ['an empty ID', `notes-.${note}.1`],
  ])('returns null for a name with %s', (_name, name) => {
    expect(TranscribeJobs.parseJobName('notes-', name)).toBeNull();
  });
});

describe('TranscribeJobs.parseJobStateChange', () => {
  it('reads a COMPLETED event', () => {
    const change = TranscribeJobs.parseJobStateChange(fixture('event-completed.json'));
    expect(change).toEqual({ jobName, status: 'COMPLETED' });
    expect(change).not.toHaveProperty('failureReason');
    expect(TranscribeJobs.parseJobName('notes-', change.jobName)).toEqual({
      accountId: account,
      noteId: note,
      attempt: 1,
    });
  });

  it('reads a FAILED event with its reason', () => {
    const change = TranscribeJobs.parseJobStateChange(fixture('event-failed.json'));
    expect(change.status).toBe('FAILED');
    expect(change.jobName).toBe(`notes-${account}.c9f0f895-fb98-4b91-99f5-1e2d3c4b5a66.2`);
    expect(change.failureReason).toMatch(/^The input media file length is too small/);
    expect(TranscribeJobs.failureIsPermanent(change.failureReason)).toBe(true);
  });

  const completed = fixture('event-completed.json') as Record<string, unknown>;
  it.each([
    ['null', null],
    ['an S3 notification', { Records: [{ eventSource: 'aws:s3' }] }],
    [
      'a language identification event',
      {
        ...completed,
        'detail-type': 'Language Identification State Change',
        detail: { JobType: 'TranscriptionJob', JobName: jobName, LanguageIdentificationStatus: 'COMPLETED' },
      },
    ],
    ['another source', { ...completed, source: 'aws.s3' }],
    [
      'an IN_PROGRESS status',
      { ...completed, detail: { TranscriptionJobName: jobName, TranscriptionJobStatus: 'IN_PROGRESS' } },
    ],
    [
      'an empty job name',
      { ...completed, detail: { TranscriptionJobName: '', TranscriptionJobStatus: 'COMPLETED' } },
    ],
  ])('throws for %s', (_name, event) => {
    expect(() => TranscribeJobs.parseJobStateChange(event)).toThrow(
      /Not a Transcribe job state change event/,
    );
  });
});

describe('TranscribeJobs.failureIsPermanent', () => {
  it.each([
    'Unsupported media format',
    'The media format provided does not match the detected media format',
    'Invalid sample rate for audio file',
    'The sample rate provided does not match the detected sample rate',
    'Invalid file size: file size too large',
    'Invalid file size: file size too large. Maximum audio duration is 4.000000 hours.Check the length of the file and try your request again.',
    'Invalid number of channels: number of channels too large',
    'The input media file length is too small. Minimum audio duration is 0.500000 seconds. Check the length of the file and try your request again.',
    'Your audio file must have a speech segment long enough in duration to perform automatic language identification. Provide an audio file with someone speaking for a longer period of time and try your request again.',
  ])('is true for media problems: %s', (reason) => {
    expect(TranscribeJobs.failureIsPermanent(reason)).toBe(true);
  });

  it.each([
    ['an internal error', 'Internal failure'],
    ['no reason', undefined],
  ])('is false for %s', (_name, reason) => {
    expect(TranscribeJobs.failureIsPermanent(reason)).toBe(false);
  });
});

describe('TranscribeJobs.status (the reconciler asks about a job whose event may be missed)', () => {
  function answering(outcome: () => Promise<unknown>) {
    const send = vi.fn(
      (_command: GetTranscriptionJobCommand) => outcome() as Promise<GetTranscriptionJobCommandOutput>,
    );
    return { jobs: new TranscribeJobs({ send }), send };
  }

  it('asks GetTranscriptionJob by the job name, and reads COMPLETED as a success', async () => {
    const { jobs, send } = answering(async () => fixture('get-job-completed.json'));
    expect(await jobs.status(jobName)).toEqual({
      state: 'ended',
      succeeded: true,
      permanent: false,
      transient: false,
    });
    const command = send.mock.calls[0]?.[0];
    expect(command).toBeInstanceOf(GetTranscriptionJobCommand);
    expect(command?.input).toEqual({ TranscriptionJobName: jobName });
  });

  it('reads FAILED with its reason, permanent when the media is the problem', async () => {
    const { jobs } = answering(async () => fixture('get-job-failed.json'));
    expect(await jobs.status(jobName)).toEqual({
      state: 'ended',
      succeeded: false,
      failureReason: expect.stringMatching(/^The media format provided does not match/),
      permanent: true,
      transient: false,
    });
  });

  it("reads Transcribe's own failure as transient, a media problem never so", () => {
    expect(TranscribeJobs.failureIsTransient('Internal failure')).toBe(true);
    expect(TranscribeJobs.failureIsTransient('The service is temporarily unavailable')).toBe(true);
    expect(
      TranscribeJobs.failureIsTransient(
        'The input media file length is too small. Minimum audio duration is 0.500000 milliseconds. Check the length of the file and try your request again.',
      ),
    ).toBe(false);
    expect(TranscribeJobs.failureIsTransient('Access denied to the output bucket')).toBe(false);
    expect(TranscribeJobs.failureIsTransient(undefined)).toBe(false);
  });

  it.each(['IN_PROGRESS', 'QUEUED'])('reads %s as still running', async (status) => {
    const answer = fixture('get-job-in-progress.json') as GetTranscriptionJobCommandOutput;
    const { jobs } = answering(async () => ({
      ...answer,
      TranscriptionJob: { ...answer.TranscriptionJob, TranscriptionJobStatus: status },
    }));
    expect(await jobs.status(jobName)).toEqual({ state: 'running' });
  });

  it('reads the BadRequestException for a job Transcribe does not have as unknown', async () => {
    const { jobs } = answering(() =>
      Promise.reject(
        new BadRequestException({
          message: "The requested job couldn't be found. Check the job name and try your request again.",
          $metadata: {},
        }),
      ),
    );
    expect(await jobs.status(jobName)).toEqual({ state: 'unknown' });
  });

  it('lets any other error through (a throttled call is tried again on the next run)', async () => {
    const { jobs } = answering(() =>
      Promise.reject(new LimitExceededException({ message: 'Rate exceeded', $metadata: {} })),
    );
    await expect(jobs.status(jobName)).rejects.toThrow('Rate exceeded');
    const { jobs: badRequest } = answering(() =>
      Promise.reject(new BadRequestException({ message: 'Invalid job name', $metadata: {} })),
    );
    await expect(badRequest.status(jobName)).rejects.toThrow('Invalid job name');
  });
});
