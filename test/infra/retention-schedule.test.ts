import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  resourcesOfType,
  STAGE,
  statementsOfFunction,
} from './support.ts';

const { template } = buildNotesApp();
const name = `notes-${STAGE}-applyRetention`;
const retention = defined(functionsByName(template).get(name), 'the applyRetention function');
const statements = statementsOfFunction(template, name);

describe("collections' retention on AWS", () => {
  it('runs every hour from an EventBridge schedule that invokes applyRetention, and only it', () => {
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter((rule) =>
      (rule.Properties.Targets as Array<{ Arn: unknown }>).some(
        (target) => getAttLogicalId(target.Arn) === retention.logicalId,
      ),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({ ScheduleExpression: 'rate(1 hour)', State: 'ENABLED' });
    expect(rules[0]?.Properties.Targets).toHaveLength(1);
  });

  it('does not retry a failed run (the next hour does) and ends long before the next starts', () => {
    const [config] = Object.values(resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig')).filter(
      (c) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: retention.logicalId }),
    );
    expect(config?.Properties).toMatchObject({ MaximumRetryAttempts: 0 });
    expect(retention.resource.Properties.Timeout).toBeLessThanOrEqual(15 * 60);
  });

  it('reads and writes the table and deletes objects, but never scans, sends to a queue or writes objects', () => {
    const granted = actionsOf(statements);
    expect(granted).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:PutItem', 's3:DeleteObject']),
    );
    expect(granted).not.toContain('dynamodb:Scan');
    expect(granted.filter((action) => action.startsWith('sqs:'))).toEqual([]);
    expect(granted).not.toContain('s3:PutObject');
  });

  it('is told the trash period of the deploy context (NOTES_TRASH_DAYS, 30 days by default)', () => {
    const variables = (retention.resource.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables.NOTES_TRASH_DAYS).toBe('30');
  });
});
