import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { Needs, WorkQueueName } from '../src/routes.ts';
import { modelInvocationStatements } from './bedrock-model-arns.ts';
import { acknowledge, wildcardResourceFinding } from './nag.ts';

/** Every object of a user lives under `accounts/<account>/...` (src/domain/object-keys.ts). */
export const OBJECT_PREFIX = 'accounts/';

export interface GrantTargets {
  table: ITableV2;
  bucket: IBucket;
  queues: Record<WorkQueueName, IQueue>;
  /** Bedrock models or inference profiles a function with `needs.models` may invoke. */
  modelIds: string[];
  /** Destination Regions of geographic inference profiles, when not the documented defaults. */
  modelProfileRegions?: string[];
  /** The KMS key that signs MCP access tokens (`needs.tokenKey`). */
  tokenSigningKey?: IKey;
}

/**
 * The DynamoDB calls the service makes (src/adapters/dynamodb), and no others: not Scan (only the local
 * runtime's start-up recovery scans), DescribeTable or the stream reads that CDK's grantReadData adds.
 * Writes include BatchWriteItem: the search index and collections write in batches.
 */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
} as const;

const objectActions = {
  read: ['s3:GetObject'],
  write: ['s3:PutObject'],
  delete: ['s3:DeleteObject'],
} as const satisfies Record<NonNullable<Needs['objects']>[number], readonly string[]>;

/**
 * Grants a function exactly what its `needs` entry in src/routes.ts says, and nothing else: the route
 * table is the single statement of who may do what, and the infra tests check the result.
 * `scope` is where the cdk-nag acknowledgements of the wildcards introduced here are recorded.
 */
export function grantNeeds(
  scope: IConstruct,
  grantee: IGrantable,
  needs: Needs,
  targets: GrantTargets,
): void {
  const { table, bucket } = targets;

  // Every function that checks a caller's credentials reads the table at least.
  if (needs.table) {
    const actions =
      needs.table === 'write' ? [...tableActions.read, ...tableActions.write] : tableActions.read;
    table.grant(grantee, ...actions);
  }
  // The table has a GSI (table-definition.ts), so both grants add `<table ARN>/index/*`.
  if (needs.table) {
    acknowledge(
      scope,
      wildcardResourceFinding(scope, `${table.tableArn}/index/*`),
      'index/* under this one table ARN: the queries use its own GSI (gsi1); no other table is reachable',
    );
  }

  const objects = needs.objects ?? [];
  if (objects.length > 0) {
    const objectArns = bucket.arnForObjects(`${OBJECT_PREFIX}*`);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: objects.flatMap((access) => objectActions[access]),
        resources: [objectArns],
      }),
    );
    acknowledge(
      scope,
      wildcardResourceFinding(scope, objectArns),
      'Object keys are accounts/<account>/notes/<note>/... chosen per request: the ARN can only be the accounts/ prefix',
    );
  }
  if (objects.includes('read')) {
    // With ListBucket, S3 answers a missing object 404 (NoSuchKey) rather than 403, so a result that
    // is gone is told apart from a permission error (src/domain/stored-results.ts). The check runs
    // without an s3:prefix, so it cannot carry the prefix condition the delete grant has.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
    );
  }
  if (objects.includes('delete')) {
    // Deleting a note deletes its prefix, which takes listing it (only under accounts/).
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': `${OBJECT_PREFIX}*` } },
      }),
    );
  }

  for (const queue of needsQueues(needs)) targets.queues[queue].grantSendMessages(grantee);
  if (needs.models) grantModelInvocation(grantee, scope, targets.modelIds, targets.modelProfileRegions);
  if (needs.voices) grantSpeechSynthesis(grantee, scope);
  if (needs.tokenKey) {
    if (!targets.tokenSigningKey) throw new Error('needs.tokenKey without a token signing key');
    const actions = needs.tokenKey === 'sign' ? ['kms:GetPublicKey', 'kms:Sign'] : ['kms:GetPublicKey'];
    targets.tokenSigningKey.grant(grantee, ...actions);
  }
}

/**
 * Amazon Polly SynthesizeSpeech (podcast audio). The action has no resource of its own (lexicons are
 * the only Polly resource, and the service uses none), so IAM only accepts `*` for it.
 */
export function grantSpeechSynthesis(grantee: IGrantable, scope: IConstruct): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['polly:SynthesizeSpeech'], resources: ['*'] }),
  );
  acknowledge(
    scope,
    wildcardResourceFinding(scope, '*'),
    'polly:SynthesizeSpeech has no resource-level permissions when no lexicon is used: Resource must be *',
  );
}

/**
 * Bedrock invocation of exactly the configured models (context `bedrockModelIds`): for an inference
 * profile, the profile and the foundation model in each Region it routes to (lib/bedrock-model-arns.ts).
 * Converse and ConverseStream are authorised by these two actions.
 */
export function grantModelInvocation(
  grantee: IGrantable,
  scope: IConstruct,
  modelIds: string[],
  profileRegions?: string[],
): void {
  for (const statement of modelInvocationStatements(scope, modelIds, profileRegions)) {
    grantee.grantPrincipal.addToPrincipalPolicy(statement);
  }
}

/** The queues a function sends to (none, one or several). */
export function needsQueues(needs: Needs): readonly WorkQueueName[] {
  if (needs.queue === undefined) return [];
  return typeof needs.queue === 'string' ? [needs.queue] : needs.queue;
}
