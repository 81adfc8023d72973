import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ffmpegFailure } from '../../src/adapters/speech/ffmpeg.ts';
import { UnreadableAudioError } from '../../src/domain/errors.ts';
import { passesWithTime } from '../../src/domain/transient-faults.ts';
import { storageFaultOf } from '../../src/ports/storage-faults.ts';
import type { MessageRetry } from '../../src/workers/message-retry.ts';
import { sqsWorker } from '../../src/workers/sqs-worker.ts';
import {
  STORAGE_WAITS_ATTRIBUTE,
  storageWaitSeconds,
  storageWaitsOf,
} from '../../src/workers/storage-wait.ts';

const lowest = () => 0;
const highest = () => 0.999_999;

function record(waits?: number): SQSRecord {
  return {
    messageId: 'm-1',
    receiptHandle: 'r-1',
    body: '{}',
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 's',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes:
      waits === undefined
        ? {}
        : {
            [STORAGE_WAITS_ATTRIBUTE]: {
              dataType: 'Number',
              stringValue: String(waits),
              stringListValues: [],
              binaryListValues: [],
            },
          },
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notes-uploads',
    awsRegion: 'us-east-1',
  };
}

const diskFull = () => Object.assign(new Error('No space left'), { name: 'InsufficientStorage' });

/** Runs a worker whose work throws `error` once, with a retry that records what it was asked. */
async function failOnce(error: Error, retry: Partial<MessageRetry>) {
  const calls: string[] = [];
  const fullRetry: MessageRetry = {
    returnLater: async () => {
      calls.push('returnLater');
      return 10;
    },
    ...(retry.waitForStorage
      ? {
          waitForStorage: async (r: SQSRecord) => {
            calls.push('waitForStorage');
            return (retry.waitForStorage as NonNullable<MessageRetry['waitForStorage']>)(r);
          },
        }
      : {}),
  };
  const handler = sqsWorker(
    'test',
    () => ({}),
    async () => {
      throw error;
    },
    () => fullRetry,
  );
  const response = await handler({ Records: [record()] } as SQSEvent, {} as Context);
  return { failures: response.batchItemFailures.map((f) => f.itemIdentifier), calls };
}

describe('a queue message whose work meets a full disk', () => {
  it('waits for space without being reported failed, where storage waits are enabled', async () => {
    const { failures, calls } = await failOnce(diskFull(), { waitForStorage: async () => 61 });
    expect(failures).toEqual([]);
    expect(calls).toEqual(['waitForStorage']);
  });

  it('is retried as any failure where storage waits are off (AWS), spending a receive', async () => {
    const { failures, calls } = await failOnce(diskFull(), {});
    expect(failures).toEqual(['m-1']);
    expect(calls).toEqual(['returnLater']);
  });

  it('is retried as any failure when it cannot be put back to wait', async () => {
    const { failures, calls } = await failOnce(diskFull(), {
      waitForStorage: async () => {
        throw new Error('queue unreachable');
      },
    });
    expect(failures).toEqual(['m-1']);
    expect(calls).toEqual(['waitForStorage', 'returnLater']);
  });

  it('other faults spend a receive as before', async () => {
    const { failures, calls } = await failOnce(new Error('boom'), { waitForStorage: async () => 61 });
    expect(failures).toEqual(['m-1']);
    expect(calls).toEqual(['returnLater']);
  });
});

describe('the wait of a message for storage space', () => {
  it('never comes back before the job lease has run out, so the job can be claimed again', () => {
    expect(storageWaitSeconds(0, { leaseSeconds: 60, random: lowest })).toBe(61);
    expect(storageWaitSeconds(0, { leaseSeconds: 2, random: lowest })).toBe(3);
  });

  it('grows with each wait up to a minute, and stays within what SQS delays', () => {
    const waits = [0, 1, 2, 3, 4, 20].map((n) => storageWaitSeconds(n, { leaseSeconds: 0, random: highest }));
    expect(waits).toEqual([4, 8, 16, 32, 60, 60]);
    expect(storageWaitSeconds(0, { leaseSeconds: 3600, random: highest })).toBe(900);
  });

  it('counts the waits of a message in its attributes', () => {
    expect(storageWaitsOf(record())).toBe(0);
    expect(storageWaitsOf(record(4))).toBe(4);
  });
});

describe('what counts as a storage fault', () => {
  it('a full or unwritable store or data directory, from the stand-ins or the file system', () => {
    expect(storageFaultOf(diskFull())).toBe('full');
    expect(storageFaultOf(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe('full');
    expect(storageFaultOf(Object.assign(new Error('x'), { name: 'ServiceUnavailable' }))).toBe('unwritable');
    expect(storageFaultOf(Object.assign(new Error('x'), { code: 'EROFS' }))).toBe('unwritable');
    expect(storageFaultOf(new Error('x'))).toBeNull();
    expect(passesWithTime(diskFull())).toBe(true);
  });

  it('ffmpeg out of space for its output is a full disk, not a recording that is not audio', () => {
    const error = ffmpegFailure(
      '/usr/bin/ffmpeg',
      '/work/audio',
      'Invalid data found when processing input\n/work/out.wav: No space left on device\n',
      1,
      null,
    );
    expect(error).not.toBeInstanceOf(UnreadableAudioError);
    expect(storageFaultOf(error)).toBe('full');
  });
});
