import { describe, expect, it } from 'vitest';
import { queueUrlOf } from '../../src/workers/message-retry.ts';
import { RETRY_BACKOFF, retryDelaySeconds } from '../../src/workers/retry-backoff.ts';

const lowest = () => 0;
const highest = () => 0.999_999;

describe('the retry backoff of a failed queue message', () => {
  it('waits 10-20 s after the first receive, 20-40 s after the second, 40-80 s after the third', () => {
    const ranges = [1, 2, 3].map((receive) => [
      retryDelaySeconds(receive, RETRY_BACKOFF, lowest),
      retryDelaySeconds(receive, RETRY_BACKOFF, highest),
    ]);
    expect(ranges).toEqual([
      [10, 20],
      [20, 40],
      [40, 80],
    ]);
  });

  it('never waits more than 5 minutes, however often the message was received', () => {
    for (const receive of [5, 6, 50, 5000]) {
      expect(retryDelaySeconds(receive, RETRY_BACKOFF, highest)).toBe(300);
      expect(retryDelaySeconds(receive, RETRY_BACKOFF, lowest)).toBe(150);
    }
  });

  it('spreads messages that failed together over the range (jitter)', () => {
    const delays = new Set(Array.from({ length: 200 }, () => retryDelaySeconds(2)));
    expect(delays.size).toBeGreaterThan(5);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(20);
      expect(delay).toBeLessThanOrEqual(40);
    }
  });

  it('treats a missing or unreadable receive count as the first receive', () => {
    for (const count of [Number.NaN, 0, -1, 1.5]) {
      expect(retryDelaySeconds(count, RETRY_BACKOFF, lowest)).toBe(10);
    }
  });
});

describe('the queue URL of an SQS record', () => {
  const configured = ['http://127.0.0.1:4566/000000000000/transcription'];

  it('is the configured URL of the queue with that name', () => {
    expect(queueUrlOf('arn:aws:sqs:us-east-1:000000000000:transcription', configured)).toBe(configured[0]);
  });

  it('is built in the documented SQS form for any other queue, per partition', () => {
    expect(queueUrlOf('arn:aws:sqs:eu-west-1:123456789012:notes-prod-generation-dlq', configured)).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/notes-prod-generation-dlq',
    );
    expect(queueUrlOf('arn:aws-cn:sqs:cn-north-1:123456789012:q', [])).toBe(
      'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q',
    );
  });

  it('refuses what is not an SQS queue ARN', () => {
    expect(() => queueUrlOf('arn:aws:sns:us-east-1:123456789012:topic', [])).toThrow(/not an SQS queue ARN/);
    expect(() => queueUrlOf('', [])).toThrow(/not an SQS queue ARN/);
  });
});
