import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { grantModelInvocation } from '../../lib/grants.ts';
import { apiRoutes, eventWorkers, type Needs, queueWorkers } from '../../src/routes.ts';
import {
  actionsOf,
  asList,
  buildNotesApp,
  defined,
  functionsByName,
  resourcesOfType,
  STAGE,
  type Statement,
  statementsOfFunction,
} from './support.ts';

const { template } = buildNotesApp();
const functionName = (handler: string) => `notes-${STAGE}-${handler}`;
const actions = (handler: string) => actionsOf(statementsOfFunction(template, functionName(handler)));

const TABLE_WRITES = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
const OBJECT_WRITES = ['s3:PutObject', 's3:DeleteObject'];

const allHandlers: Array<[string, Needs]> = [
  ...Object.entries(apiRoutes).map(([name, route]) => [name, route.needs] as [string, Needs]),
  ...Object.entries(queueWorkers).map(([name, worker]) => [name, worker.needs] as [string, Needs]),
  ...Object.entries(eventWorkers).map(([name, worker]) => [name, worker.needs] as [string, Needs]),
];

describe('each function may do only what its operation needs', () => {
  it('getNote reads objects and cannot write or delete them; it may write the table (a lost result fails its job)', () => {
    const granted = actions('getNote');
    expect(granted).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject']));
    for (const action of OBJECT_WRITES) expect(granted).not.toContain(action);
  });

  it('uploadReceived reads and deletes recordings (an orphan), writes the table and sends to the transcription queue only; it cannot store objects', () => {
    const granted = actions('uploadReceived');
    expect(granted).toEqual(
      expect.arrayContaining(['s3:GetObject', 's3:DeleteObject', 'dynamodb:UpdateItem', 'sqs:SendMessage']),
    );
    expect(granted).not.toContain('s3:PutObject');
    const sends = statementsOfFunction(template, functionName('uploadReceived')).filter((s) =>
      asList(s.Action).includes('sqs:SendMessage'),
    );
    expect(sends.map((s) => JSON.stringify(s.Resource))).toEqual([
      expect.stringMatching(/QueuesTranscriptionQueue/),
    ]);
  });

  it('uploadsDeadLetter reads recordings and writes the table, and can neither store nor delete objects', () => {
    const granted = actions('uploadsDeadLetter');
    expect(granted).toEqual(expect.arrayContaining(['s3:GetObject', 'dynamodb:UpdateItem']));
    for (const action of [...OBJECT_WRITES, 'sqs:SendMessage']) expect(granted).not.toContain(action);
  });

  it('getCurrentAccount and listNotes cannot write the table', () => {
    for (const name of ['getCurrentAccount', 'listNotes'] as const) {
      for (const action of TABLE_WRITES) expect(actions(name)).not.toContain(action);
    }
  });

  it('updateNote can write the table but cannot write or delete objects', () => {
    const granted = actions('updateNote');
    expect(granted).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));
    for (const action of OBJECT_WRITES) expect(granted).not.toContain(action);
  });

  it('deleteNote can delete the objects under a note prefix, listing them first', () => {
    const granted = actions('deleteNote');
    expect(granted).toEqual(
      expect.arrayContaining(['s3:DeleteObject', 's3:ListBucket', 'dynamodb:DeleteItem']),
    );
    expect(granted).not.toContain('s3:PutObject');
    const list = statementsOfFunction(template, functionName('deleteNote')).find((s) =>
      asList(s.Action).includes('s3:ListBucket'),
    );
    expect(list?.Condition).toEqual({ StringLike: { 's3:prefix': 'accounts/*' } });
  });

  it('only the operations that start work can send to a work queue: exactly the ones their needs name', () => {
    // transcriptionCompleted also sends its own failed events to a dead-letter queue (transcribe-events.test.ts);
    // the generation worker sends throttled work back to its own queue to wait for the quota.
    const senders = allHandlers
      .filter(([name]) => actions(name).includes('sqs:SendMessage'))
      .map(([name]) => name);
    expect(senders.sort()).toEqual([
      'generateInsights',
      'generateNoteArtifact',
      'generationWorker',
      'reconcileJobs',
      'submitTranscription',
      'transcriptionCompleted',
      'uploadReceived',
    ]);
    expect(
      allHandlers
        .filter(([, needs]) => needs.queue)
        .map(([name]) => name)
        .sort(),
    ).toEqual(senders);
  });

  it.each(allHandlers.filter(([, needs]) => needs.table === 'read').map(([name]) => name))(
    'the read handler %s cannot change the table, the objects or the queue',
    (name) => {
      const granted = actions(name);
      for (const action of [...TABLE_WRITES, ...OBJECT_WRITES, 'sqs:SendMessage']) {
        expect(granted).not.toContain(action);
      }
    },
  );

  it.each(allHandlers)('%s has object permissions exactly matching its needs', (name, needs) => {
    const objectActions = [...new Set(actions(name).filter((a) => a.startsWith('s3:')))].sort();
    // Readers list too, so that a missing object answers 404 rather than 403.
    const expected = [
      ...new Set([
        ...(needs.objects?.includes('read') ? ['s3:GetObject', 's3:ListBucket'] : []),
        ...(needs.objects?.includes('write') ? ['s3:PutObject'] : []),
        ...(needs.objects?.includes('delete') ? ['s3:DeleteObject', 's3:ListBucket'] : []),
      ]),
    ].sort();
    expect(objectActions).toEqual(expected);
  });

  it.each(allHandlers)(
    '%s has table permissions exactly matching its needs: never Scan, DescribeTable or stream reads',
    (name, needs) => {
      const tableActions = [...new Set(actions(name).filter((a) => a.startsWith('dynamodb:')))].sort();
      const reads = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
      const expected = needs.table === 'write' ? [...reads, ...TABLE_WRITES] : needs.table ? reads : [];
      expect(tableActions).toEqual(expected.sort());
    },
  );

  it('a table grant covers the table and its index, nothing else', () => {
    const tableStatements = statementsOfFunction(template, functionName('searchNotes')).filter((s) =>
      asList(s.Action).some((a) => a.startsWith('dynamodb:')),
    );
    const resources = tableStatements.flatMap((s) => asList(s.Resource).map((r) => JSON.stringify(r)));
    expect(resources).toHaveLength(2);
    expect(resources[0]).toMatch(/StorageTable.*Arn/);
    expect(resources[1]).toMatch(/StorageTable.*\/index\/\*/);
  });

  it.each(allHandlers)('%s reaches objects only under accounts/ of the data bucket', (name) => {
    const objectStatements = statementsOfFunction(template, functionName(name)).filter((s) =>
      asList(s.Action).some((a) => a.startsWith('s3:') && a !== 's3:ListBucket'),
    );
    for (const statement of objectStatements) {
      const [join] = asList(statement.Resource) as Array<{ 'Fn::Join': [string, unknown[]] }>;
      expect(join?.['Fn::Join'][1].at(-1)).toBe('/accounts/*');
    }
  });
});

describe('wildcards', () => {
  const allStatements: Array<{ policy: string; statement: Statement }> = Object.entries(
    resourcesOfType(template, 'AWS::IAM::Policy'),
  ).flatMap(([policy, resource]) =>
    (resource.Properties.PolicyDocument as { Statement: Statement[] }).Statement.map((statement) => ({
      policy,
      statement,
    })),
  );

  it('no statement of the service functions has Resource "*" except X-Ray trace writing and Polly speech', () => {
    const ours = new Set(
      [...functionsByName(template).values()].map(
        (fn) => (fn.resource.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0],
      ),
    );
    const policiesOfOurs = Object.entries(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter(([, p]) => asList(p.Properties.Roles as Array<{ Ref: string }>).some((r) => ours.has(r.Ref)))
      .map(([id]) => id);
    const starred = allStatements.filter(
      ({ policy, statement }) => policiesOfOurs.includes(policy) && asList(statement.Resource).includes('*'),
    );
    // One per function (CDK merges statements with the same resource, so Polly joins X-Ray in one).
    expect(starred.length).toBe(ours.size);
    const allowed = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments', 'polly:SynthesizeSpeech'];
    for (const { statement } of starred) {
      expect(allowed).toEqual(expect.arrayContaining(asList(statement.Action)));
      expect(asList(statement.Action)).toEqual(expect.arrayContaining(allowed.slice(0, 2)));
    }
    // SynthesizeSpeech has no resource-level permissions; only the generation worker speaks.
    expect(actions('generationWorker')).toContain('polly:SynthesizeSpeech');
    for (const [name] of allHandlers.filter(([handler]) => handler !== 'generationWorker')) {
      expect(actions(name)).not.toContain('polly:SynthesizeSpeech');
    }
  });

  it('outside our functions, only CDK BucketDeployment has Resource "*": for CloudFront invalidations', () => {
    const starred = allStatements
      .filter(({ statement }) => asList(statement.Resource).includes('*'))
      .filter(({ statement }) => !asList(statement.Action).every((a) => a.startsWith('xray:')))
      .filter(({ statement }) => !asList(statement.Action).includes('polly:SynthesizeSpeech'));
    expect(starred.map(({ statement }) => asList(statement.Action).sort())).toEqual([
      ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation'],
    ]);
    expect(starred[0]?.policy).toMatch(/^CustomCDKBucketDeployment/);
  });

  it('no function role carries an AWS managed policy', () => {
    const roles = [...functionsByName(template).values()].map(
      (fn) => (fn.resource.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0],
    );
    const roleResources = resourcesOfType(template, 'AWS::IAM::Role');
    for (const role of roles) expect(roleResources[role]?.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

/** An ARN as text, with CloudFormation's pseudo parameters shown as `<region>`, `<account>`. */
function arnText(value: unknown): string {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': '<region>',
    'AWS::AccountId': '<account>',
  };
  if (typeof value === 'string') return value;
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return pseudo[ref] ?? `<${ref}>`;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(arnText).join(join[0]);
  throw new Error(`not an ARN: ${JSON.stringify(value)}`);
}

/** The Bedrock statements `grantModelInvocation` gives a role, with their ARNs as text. */
function modelGrant(modelIds: string[], profileRegions?: string[]) {
  const stack = new Stack(new App(), 'Models');
  const role = new Role(stack, 'GenerationWorker', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
  });
  grantModelInvocation(role, stack, modelIds, profileRegions);
  const [policy] = Object.values(resourcesOfType(Template.fromStack(stack), 'AWS::IAM::Policy'));
  const statements = (defined(policy, 'policy').Properties.PolicyDocument as { Statement: Statement[] })
    .Statement;
  return statements.map((statement) => ({
    actions: asList(statement.Action),
    resources: asList(statement.Resource).map(arnText),
    condition: statement.Condition,
  }));
}

const INVOKE = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
const SONNET = 'anthropic.claude-sonnet-4-6';

describe('Bedrock access: the configured models, and for a profile every Region it routes to', () => {
  it('a plain model ID is granted as its foundation model in the stack Region, and nothing else', () => {
    expect(modelGrant(['anthropic.claude-3-haiku-20240307-v1:0'])).toEqual([
      {
        actions: INVOKE,
        resources: ['arn:aws:bedrock:<region>::foundation-model/anthropic.claude-3-haiku-20240307-v1:0'],
        condition: undefined,
      },
    ]);
  });

  it('a us. profile ID is granted as the inference-profile ARN plus the foundation model in each US Region, only through that profile', () => {
    const profileArn = `arn:aws:bedrock:<region>:<account>:inference-profile/us.${SONNET}`;
    const [profile, routed] = modelGrant([`us.${SONNET}`]);
    expect(profile).toEqual({ actions: INVOKE, resources: [profileArn], condition: undefined });
    expect(routed?.actions).toEqual(INVOKE);
    expect(routed?.resources).toEqual(
      ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'].map(
        (region) => `arn:aws:bedrock:${region}::foundation-model/${SONNET}`,
      ),
    );
    expect(routed?.condition).toEqual({
      StringEquals: { 'bedrock:InferenceProfileArn': { 'Fn::Join': expect.any(Array) } },
    });
    const condition = routed?.condition as { StringEquals: Record<string, unknown> };
    expect(arnText(condition.StringEquals['bedrock:InferenceProfileArn'])).toBe(profileArn);
  });

  it('a global. profile is granted with the Region-less foundation-model ARN AWS documents for it', () => {
    const [profile, routed] = modelGrant([`global.${SONNET}`]);
    expect(profile?.resources).toEqual([
      `arn:aws:bedrock:<region>:<account>:inference-profile/global.${SONNET}`,
    ]);
    expect(routed?.resources).toEqual([
      `arn:aws:bedrock:<region>::foundation-model/${SONNET}`,
      `arn:aws:bedrock:::foundation-model/${SONNET}`,
    ]);
    expect(routed?.condition).toHaveProperty(['StringEquals', 'bedrock:InferenceProfileArn']);
  });

  it('configured destination Regions replace the documented defaults', () => {
    const [, routed] = modelGrant([`eu.${SONNET}`], ['eu-west-1', 'eu-central-1']);
    expect(routed?.resources).toEqual([
      `arn:aws:bedrock:eu-west-1::foundation-model/${SONNET}`,
      `arn:aws:bedrock:eu-central-1::foundation-model/${SONNET}`,
    ]);
  });

  it('the deployed Ask and generation functions may invoke the default profile and its foundation models', () => {
    for (const handler of ['askWorkspace', 'generationWorker']) {
      const bedrock = statementsOfFunction(template, functionName(handler)).filter((statement) =>
        asList(statement.Action).includes('bedrock:InvokeModel'),
      );
      const resources = bedrock.flatMap((statement) => asList(statement.Resource).map(arnText));
      expect(resources).toContain(`arn:aws:bedrock:<region>:<account>:inference-profile/us.${SONNET}`);
      expect(resources).toContain(`arn:aws:bedrock:us-east-2::foundation-model/${SONNET}`);
    }
  });

  it('functions that do not generate text may invoke no model', () => {
    expect(actions('getNote')).not.toContain('bedrock:InvokeModel');
  });
});
