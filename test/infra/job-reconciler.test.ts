import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  asList,
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  resourcesOfType,
  STAGE,
  statementsOfFunction,
} from './support.ts';

const { template } = buildNotesApp();
const name = `notes-${STAGE}-reconcileJobs`;
const reconciler = defined(functionsByName(template).get(name), 'the reconcileJobs function');
const statements = statementsOfFunction(template, name);

describe('the job reconciler on AWS', () => {
  it('runs every 15 minutes from an EventBridge schedule that invokes reconcileJobs', () => {
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter(
      (rule) =>
        rule.Properties.ScheduleExpression !== undefined &&
        (rule.Properties.Targets as Array<{ Arn: unknown }>).some(
          (target) => getAttLogicalId(target.Arn) === reconciler.logicalId,
        ),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({ ScheduleExpression: 'rate(15 minutes)', State: 'ENABLED' });
    const targets = rules[0]?.Properties.Targets as Array<{ Arn: unknown; RetryPolicy?: unknown }>;
    expect(targets.map((target) => getAttLogicalId(target.Arn))).toEqual([reconciler.logicalId]);
    const permissions = Object.values(resourcesOfType(template, 'AWS::Lambda::Permission')).filter(
      (permission) =>
        getAttLogicalId(permission.Properties.FunctionName) === reconciler.logicalId &&
        permission.Properties.Principal === 'events.amazonaws.com',
    );
    expect(permissions).toHaveLength(1);
  });

  it('does not retry a failed run (the next one comes within the quarter hour) and ends before the next starts', () => {
    const [config] = Object.values(resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig')).filter(
      (c) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: reconciler.logicalId }),
    );
    expect(config?.Properties).toMatchObject({ MaximumRetryAttempts: 0 });
    expect(reconciler.resource.Properties.Timeout).toBeLessThan(15 * 60);
  });

  it('may read and write the table by key and by index, but never scan it', () => {
    const granted = actionsOf(statements);
    expect(granted).toEqual(
      expect.arrayContaining([
        'dynamodb:Query',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]),
    );
    expect(granted).not.toContain('dynamodb:Scan');
  });

  it('may send to the transcription and generation queues, and to no other', () => {
    const sends = statements.filter((s) => asList(s.Action).includes('sqs:SendMessage'));
    const queues = sends.flatMap((s) => asList(s.Resource).map((arn) => String(getAttLogicalId(arn))));
    expect(queues.sort()).toEqual([
      expect.stringMatching(/QueuesGenerationQueue/),
      expect.stringMatching(/QueuesTranscriptionQueue/),
    ]);
  });

  it('may ask Transcribe about this stage’s jobs, and cannot start one', () => {
    const transcribe = statements.filter((s) => asList(s.Action).some((a) => a.startsWith('transcribe:')));
    expect(transcribe.flatMap((s) => asList(s.Action))).toEqual(['transcribe:GetTranscriptionJob']);
    expect(JSON.stringify(transcribe[0]?.Resource)).toContain(`transcription-job/notes-${STAGE}-*`);
  });

  it('alarms on its errors and throttles', () => {
    const watching = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) =>
        JSON.stringify((alarm.Properties.Dimensions as Array<{ Value: unknown }>)?.[0]?.Value) ===
        JSON.stringify({ Ref: reconciler.logicalId }),
    );
    expect(watching.map((alarm) => alarm.Properties.MetricName).sort()).toEqual(['Errors', 'Throttles']);
  });
});
