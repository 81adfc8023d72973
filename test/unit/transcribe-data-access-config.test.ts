import { describe, expect, it } from 'vitest';
import { loadConfigFrom } from '../../src/config.ts';

const base = {
  NOTES_TABLE_NAME: 'notes',
  NOTES_BUCKET_NAME: 'notes-data',
  NOTES_TRANSCRIPTION_QUEUE_URL: 'http://127.0.0.1:1/transcription',
  NOTES_GENERATION_QUEUE_URL: 'http://127.0.0.1:1/generation',
  NOTES_SPEECH_ENGINE: 'transcribe',
};

describe('NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN', () => {
  it('is optional: without it Transcribe jobs are not queued', () => {
    expect(loadConfigFrom(base).NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN).toBeUndefined();
  });

  it.each([
    'arn:aws:iam::111122223333:role/notes-prod-transcribe-data-access',
    'arn:aws-cn:iam::111122223333:role/service/notes-transcribe',
  ])('accepts the IAM role ARN %s', (arn) => {
    expect(
      loadConfigFrom({ ...base, NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN: arn })
        .NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN,
    ).toBe(arn);
  });

  it.each([
    ['a role name', 'notes-prod-transcribe-data-access'],
    ['a user ARN', 'arn:aws:iam::111122223333:user/deployer'],
    ['an S3 ARN', 'arn:aws:s3:::notes-data'],
  ])('refuses %s at start-up, naming the variable', (_name, value) => {
    expect(() => loadConfigFrom({ ...base, NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN: value })).toThrow(
      /NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN/,
    );
  });
});
