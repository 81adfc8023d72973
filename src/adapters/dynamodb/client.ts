import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  type DeleteCommand,
  DynamoDBDocumentClient,
  type PutCommand,
  QueryCommand,
  type QueryCommandInput,
  type UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { withoutIdleWork } from '../sdk-idle-work.ts';

export function createDocumentClient(config: DynamoDBClientConfig): DynamoDBDocumentClient {
  const { endpoint } = config;
  const client = new DynamoDBClient(
    typeof endpoint === 'string'
      ? // A local stand-in's endpoint is fixed: resolving DynamoDB's endpoint rules for it on every
        // call (as for AWS, where region and options choose the endpoint) always gives this answer.
        { ...config, endpointProvider: () => ({ url: new URL(endpoint) }) }
      : config,
  );
  withoutIdleWork(client.middlewareStack, endpoint !== undefined);
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * Sends a conditional write: true when it was written, false when its condition did not hold (and
 * nothing was written). Any other failure is thrown.
 */
export async function writeIf(
  db: DynamoDBDocumentClient,
  command: PutCommand | UpdateCommand | DeleteCommand,
): Promise<boolean> {
  try {
    // The union of command types has no common `send` overload; each member is a valid command.
    await db.send(command as PutCommand);
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Strips the key attributes so an item reads back as the domain record it stores. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g1s, ...rest } = item;
  return rest as T;
}

/** Every item a query matches, page after page, without its keys. */
export async function* queryAllItems<T>(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): AsyncIterable<T> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) yield withoutKeys<T>(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
