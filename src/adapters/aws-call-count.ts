import type { DeserializeHandler, HandlerExecutionContext, MiddlewareStack } from '@smithy/types';

/**
 * Counts the requests this process sends to DynamoDB, S3 and SQS, per service and per command. The
 * round-trip test (test/integration/round-trips-per-operation.test.ts) reads it around one request of
 * each operation; it costs one increment per call, so it stays on everywhere.
 */
export type AwsService = 'dynamodb' | 's3' | 'sqs';

export interface AwsCallCounts {
  dynamodb: number;
  s3: number;
  sqs: number;
  /** Per command, e.g. `dynamodb GetItem`: 2. */
  commands: Record<string, number>;
}

const counts: AwsCallCounts = { dynamodb: 0, s3: 0, sqs: 0, commands: {} };

/**
 * Adds the counter to a client's middleware stack. It sits last before the HTTP handler (deserialize
 * step, low priority), so it counts each request really sent, retries included; a presigned URL is
 * made in an earlier step that never reaches it, so presigning is not counted.
 */
export function countAwsCalls<I extends object, O extends object>(
  stack: MiddlewareStack<I, O>,
  service: AwsService,
): void {
  stack.add(
    (next: DeserializeHandler<I, O>, context: HandlerExecutionContext) => (args) => {
      counts[service] += 1;
      const command = `${service} ${(context.commandName ?? 'unknown').replace(/Command$/, '')}`;
      counts.commands[command] = (counts.commands[command] ?? 0) + 1;
      return next(args);
    },
    { step: 'deserialize', name: 'countAwsCalls', priority: 'low' },
  );
}

/** A copy of the counts so far; subtract two copies to get what happened in between. */
export function awsCallCounts(): AwsCallCounts {
  return { ...counts, commands: { ...counts.commands } };
}

/** What was sent between two copies of the counts. */
export function awsCallsBetween(before: AwsCallCounts, after: AwsCallCounts): AwsCallCounts {
  const commands: Record<string, number> = {};
  for (const [command, count] of Object.entries(after.commands)) {
    const sent = count - (before.commands[command] ?? 0);
    if (sent > 0) commands[command] = sent;
  }
  return {
    dynamodb: after.dynamodb - before.dynamodb,
    s3: after.s3 - before.s3,
    sqs: after.sqs - before.sqs,
    commands,
  };
}
