import { describe, expect, it } from 'vitest';
import { type Job, queuedJob, type TranscriptPointer } from '../../src/domain/job.ts';
import { buildTranscription } from '../../src/domain/transcript.ts';
import { madeFrom, withRevisionState } from '../../src/domain/transcript-freshness.ts';

const recognised = buildTranscription([{ text: 'hello', start_ms: 0, end_ms: 400, speaker: 'Speaker 1' }], {
  duration_ms: 1000,
  engine: 'test',
  language: 'en-US',
});

function completedJob(recognition?: string, revision = 0): Job {
  const transcript: TranscriptPointer = { revision, key: `r${revision}`, edited_at: 1, highest: revision };
  return {
    ...queuedJob('account', 'note', 'transcription', 1),
    status: 'completed',
    stage: 'completed',
    ...(recognition === undefined ? {} : { recognition }),
    ...(revision === 0 ? {} : { transcript }),
  };
}

describe('whether a result is older than the transcript', () => {
  it('a result made from the current revision of the current recogniser run is not outdated, and does not show the run', () => {
    const result = { summary: 'x', ...madeFrom({ ...recognised, revision: 2, recognition: 'run-a' }) };
    const state = withRevisionState(result, completedJob('run-a', 2));
    expect(state).toEqual({ summary: 'x', transcript_revision: 2, outdated: false });
  });

  it('a result made from the same revision number of an earlier recogniser run is outdated', () => {
    const result = madeFrom({ ...recognised, revision: 0, recognition: 'run-a' });
    expect(withRevisionState(result, completedJob('run-b'))).toMatchObject({ outdated: true });
  });

  it('a result made from another revision of the same run is outdated', () => {
    const result = madeFrom({ ...recognised, revision: 1, recognition: 'run-a' });
    expect(withRevisionState(result, completedJob('run-a', 2))).toMatchObject({ outdated: true });
  });

  it('a result stored before runs were recorded matches a job completed before, and is outdated once the transcript is recognised again', () => {
    const before = { transcript_revision: 0 };
    expect(withRevisionState(before, completedJob())).toMatchObject({ outdated: false });
    expect(withRevisionState(before, completedJob('run-b'))).toMatchObject({ outdated: true });
    expect(withRevisionState({}, completedJob())).toMatchObject({ transcript_revision: 0, outdated: false });
  });
});
