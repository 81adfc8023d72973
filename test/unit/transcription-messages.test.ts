import { describe, expect, it } from 'vitest';
import { parseTranscriptionMessage } from '../../src/workers/transcription-messages.ts';

const account = '8f14e45f-ceea-4e7a-9c4b-2c1f0e7a9b11';
const note = '3c59dc04-8e8d-4f4b-9c1e-7d1e5a0c2b22';

describe('transcription queue messages', () => {
  it('reads a transcription request', () => {
    expect(
      parseTranscriptionMessage(JSON.stringify({ type: 'transcribe', account_id: account, note_id: note })),
    ).toEqual([{ accountId: account, noteId: note }]);
  });

  it('throws for an S3 upload event: those go to the uploads queue, and one here ends in the dead-letter queue', () => {
    const event = {
      Records: [
        {
          eventName: 'ObjectCreated:Put',
          s3: { object: { key: `accounts/${account}/notes/${note}/audio` } },
        },
      ],
    };
    expect(() => parseTranscriptionMessage(JSON.stringify(event))).toThrow();
  });

  it('throws for a message that is none of these, so it ends in the dead-letter queue', () => {
    expect(() => parseTranscriptionMessage('not json')).toThrow();
    expect(() => parseTranscriptionMessage(JSON.stringify({ hello: 'world' }))).toThrow();
  });
});
