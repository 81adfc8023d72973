import { describe, expect, it } from 'vitest';
import {
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  resourcesOfType,
  STAGE,
} from './support.ts';

const { template } = buildNotesApp();
const functions = functionsByName(template);
const queues = resourcesOfType(template, 'AWS::SQS::Queue');
const deadLetterQueue = Object.entries(queues).find(
  ([, queue]) => queue.Properties.QueueName === `notes-${STAGE}-transcribe-events-dlq`,
)?.[0];

describe('a Transcribe job state change event that transcriptionCompleted fails', () => {
  const completion = defined(
    functions.get(`notes-${STAGE}-transcriptionCompleted`),
    'transcriptionCompleted',
  );
  const [config] = Object.values(resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig')).filter(
    (c) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: completion.logicalId }),
  );

  it('is retried by Lambda twice, throttled for up to 6 hours, then kept in the transcribe-events DLQ rather than dropped', () => {
    expect(deadLetterQueue).toBeDefined();
    expect(config?.Properties).toMatchObject({
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 60 * 60,
    });
    const onFailure = (
      defined(config, 'its asynchronous invocation config').Properties.DestinationConfig as {
        OnFailure: { Destination: unknown };
      }
    ).OnFailure.Destination;
    expect(getAttLogicalId(onFailure)).toBe(deadLetterQueue);
  });

  it('the completion function may send to that queue, and to the transcription queue (a job Transcribe failed on its side runs again), to no other', () => {
    const roleId = (completion.resource.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const sends = Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(JSON.stringify({ Ref: roleId })))
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: Array<{ Action: unknown; Resource: unknown }> })
            .Statement,
      )
      .filter((s) => JSON.stringify(s.Action).includes('sqs:SendMessage'));
    const transcriptionQueue = Object.entries(queues).find(
      ([, queue]) => queue.Properties.QueueName === `notes-${STAGE}-transcription`,
    )?.[0];
    const resources = sends.flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]));
    expect(resources.map((resource) => getAttLogicalId(resource)).sort()).toEqual(
      [deadLetterQueue, transcriptionQueue].sort(),
    );
  });
});
