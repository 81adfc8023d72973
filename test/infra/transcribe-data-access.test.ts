import { describe, expect, it } from 'vitest';
import { TRANSCRIBE_MEDIA_KEYS, TRANSCRIBE_OUTPUT_KEYS } from '../../lib/constructs/transcribe-access.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import {
  asList,
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  type Resource,
  resourcesOfType,
  STAGE,
  type Statement,
  statementsOfFunction,
} from './support.ts';

const { template } = buildNotesApp();
const roles = resourcesOfType(template, 'AWS::IAM::Role');
const policies = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'));
const functions = functionsByName(template);

/** The roles Transcribe may assume: exactly one is expected. */
const transcribeRoles = Object.entries(roles).filter(([, role]) =>
  JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('transcribe.amazonaws.com'),
);
const [roleId, role] = defined(transcribeRoles[0], 'a role Transcribe may assume') as [string, Resource];
const roleArn = { 'Fn::GetAtt': [roleId, 'Arn'] };

function statementsOfRole(id: string): Statement[] {
  return policies
    .filter((policy) =>
      asList(policy.Properties.Roles as unknown[]).some(
        (ref) => JSON.stringify(ref) === JSON.stringify({ Ref: id }),
      ),
    )
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** `accounts/*` globs as S3 and IAM read them: `*` matches any characters, `/` included. */
function globMatches(glob: string, key: string): boolean {
  const pattern = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(key);
}

describe('the role Transcribe assumes for queued jobs', () => {
  it('is one role, assumed only by Transcribe of this account and Region (confused-deputy conditions)', () => {
    expect(transcribeRoles).toHaveLength(1);
    expect(role.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'transcribe.amazonaws.com' },
          Action: 'sts:AssumeRole',
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: {
              'aws:SourceArn': {
                'Fn::Join': [
                  '',
                  [
                    'arn:',
                    { Ref: 'AWS::Partition' },
                    ':transcribe:',
                    { Ref: 'AWS::Region' },
                    ':',
                    { Ref: 'AWS::AccountId' },
                    ':*',
                  ],
                ],
              },
            },
          },
        },
      ],
    });
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('may read recordings and write Transcribe output under the note prefixes, and nothing else', () => {
    const objects = (keys: string) => ({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.any(String), 'Arn'] }, `/${keys}`]],
    });
    expect(statementsOfRole(roleId)).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(TRANSCRIBE_MEDIA_KEYS) },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(TRANSCRIBE_OUTPUT_KEYS) },
    ]);
    // Both on the data bucket.
    const buckets = statementsOfRole(roleId).map((s) =>
      getAttLogicalId((s.Resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][0]),
    );
    const dataBucket = Object.entries(resourcesOfType(template, 'AWS::S3::Bucket')).find(
      ([, bucket]) => bucket.Properties.CorsConfiguration !== undefined,
    )?.[0];
    expect(buckets).toEqual([dataBucket, dataBucket]);
  });

  it('covers exactly the keys the Transcribe adapter reads and writes', () => {
    const account = '8f14e45f-ceea-4e7a-9c4b-2c1f0e7a9b11';
    const note = '3c59dc04-8e8d-4f4b-9c1e-7d1e5a0c2b22';
    expect(globMatches(TRANSCRIBE_MEDIA_KEYS, objectKeys.audio(account, note))).toBe(true);
    expect(globMatches(TRANSCRIBE_OUTPUT_KEYS, objectKeys.transcribeOutput(account, note, 12))).toBe(true);
    for (const other of [
      objectKeys.transcription(account, note),
      objectKeys.insights(account, note),
      objectKeys.podcastAudio(account, note),
    ]) {
      expect(globMatches(TRANSCRIBE_MEDIA_KEYS, other), other).toBe(false);
      expect(globMatches(TRANSCRIBE_OUTPUT_KEYS, other), other).toBe(false);
    }
  });

  it('needs no key grant: the data bucket is encrypted with S3-managed keys, not KMS', () => {
    const dataBucket = Object.values(resourcesOfType(template, 'AWS::S3::Bucket')).find(
      (bucket) => bucket.Properties.CorsConfiguration !== undefined,
    );
    expect(dataBucket?.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });
});

describe('passing the role to Transcribe', () => {
  const passers = [...functions.keys()].filter((name) =>
    statementsOfFunction(template, name).some((s) => asList(s.Action).includes('iam:PassRole')),
  );

  it('only the transcription worker may, only this role, and only to Transcribe', () => {
    expect(passers).toEqual([`notes-${STAGE}-transcriptionWorker`]);
    const passRole = statementsOfFunction(template, `notes-${STAGE}-transcriptionWorker`).filter((s) =>
      asList(s.Action).includes('iam:PassRole'),
    );
    expect(passRole).toEqual([
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: roleArn,
        Condition: { StringEquals: { 'iam:PassedToService': 'transcribe.amazonaws.com' } },
      },
    ]);
  });

  it('the transcription worker is told the role (job queueing on); no other function is', () => {
    for (const [name, fn] of functions) {
      const variables = (fn.resource.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      const expected = name === `notes-${STAGE}-transcriptionWorker` ? roleArn : undefined;
      expect(variables.NOTES_TRANSCRIBE_DATA_ACCESS_ROLE_ARN, name).toEqual(expected);
    }
  });
});
