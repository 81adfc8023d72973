import { describe, expect, it } from 'vitest';
import { parseUploadEvent } from '../../src/workers/upload-events.ts';

const account = '8f14e45f-ceea-4e7a-9c4b-2c1f0e7a9b11';
const note = '3c59dc04-8e8d-4f4b-9c1e-7d1e5a0c2b22';

/** An S3 event notification as S3 delivers it to SQS (AWS documentation, event structure 2.1). */
function s3Event(key: string, eventName = 'ObjectCreated:Put') {
  return JSON.stringify({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'eu-west-1',
        eventTime: '2026-11-21T10:00:00.000Z',
        eventName,
        userIdentity: { principalId: 'AWS:AROAEXAMPLE:session' },
        requestParameters: { sourceIPAddress: '203.0.113.10' },
        responseElements: {
          'x-amz-request-id': 'C3D13FE58DE4C810',
          'x-amz-id-2': 'FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD',
        },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'recording-uploaded',
          bucket: {
            name: 'notes-audio',
            ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
            arn: 'arn:aws:s3:::notes-audio',
          },
          object: {
            key,
            size: 812345,
            eTag: 'd41d8cd98f00b204e9800998ecf8427e',
            sequencer: '0055AED6DCD90281E5',
          },
        },
      },
    ],
  });
}

describe('upload events (the uploads queue)', () => {
  it('reads the account and note from the S3 event of an uploaded recording', () => {
    expect(parseUploadEvent(s3Event(`accounts/${account}/notes/${note}/audio`))).toEqual([
      { accountId: account, noteId: note },
    ]);
  });

  it('decodes URL-encoded keys as S3 sends them', () => {
    const encoded = `accounts%2F${account}%2Fnotes%2F${note}%2Faudio`;
    expect(parseUploadEvent(s3Event(encoded))[0]?.noteId).toBe(note);
  });

  it('ignores objects that are not recordings and events that are not creations', () => {
    expect(parseUploadEvent(s3Event(`accounts/${account}/notes/${note}/transcription.json`))).toEqual([]);
    expect(
      parseUploadEvent(s3Event(`accounts/${account}/notes/${note}/audio`, 'ObjectRemoved:Delete')),
    ).toEqual([]);
  });

  it('ignores the test event S3 sends when the notification is configured', () => {
    expect(
      parseUploadEvent(
        JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'notes-audio' }),
      ),
    ).toEqual([]);
  });

  it('throws for a message that is not an S3 event, so it ends in the dead-letter queue', () => {
    expect(() => parseUploadEvent('not json')).toThrow();
    expect(() =>
      parseUploadEvent(JSON.stringify({ type: 'transcribe', account_id: account, note_id: note })),
    ).toThrow();
  });
});
