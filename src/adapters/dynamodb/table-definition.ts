import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { GSI1 } from './keys.ts';

/**
 * The single table's shape, written once so the local emulator (CreateTable) and the CDK stack
 * (TableV2 / CfnTable) cannot drift apart. Key names must match the key builder in `keys.ts`.
 * Attribute types use DynamoDB's own codes ('S'), which are also the values of CDK's `AttributeType`.
 */
export const notesTableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: GSI1,
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
      projectionType: 'ALL',
    },
  ],
  /** On-demand: no capacity to size, and the same mode locally and in AWS. */
  billingMode: 'PAY_PER_REQUEST',
} as const;

/** The CreateTable request for the definition above (what the local emulators provision). */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, globalSecondaryIndexes, billingMode } = notesTableDefinition;
  const keyAttributes = [
    partitionKey,
    sortKey,
    ...globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: billingMode,
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' },
      { AttributeName: sortKey.name, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: keyAttributes.map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: index.projectionType },
    })),
  };
}
