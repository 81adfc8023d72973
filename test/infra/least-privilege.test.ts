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

  it('only the operations that start work can send to a queue: exactly the ones their needs name', () => {
    const senders = allHandlers
      .filter(([name]) => actions(name).includes('sqs:SendMessage'))
      .map(([name]) => name);
    expect(senders.sort()).toEqual(['generateInsights', 'generateNoteArtifact', 'submitTranscription']);
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

describe('Bedrock access, ready for the generation worker', () => {
  it('is scoped to exactly the configured foundation models', () => {
    const stack = new Stack(new App(), 'Models');
    const role = new Role(stack, 'GenerationWorker', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    grantModelInvocation(role, stack, ['anthropic.claude-3-5-sonnet-20240620-v1:0']);
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
            Resource: {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':bedrock:',
                  { Ref: 'AWS::Region' },
                  '::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0',
                ],
              ],
            },
          },
        ],
      },
    });
  });
});
