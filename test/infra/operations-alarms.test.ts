import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { requireModelsServedInRegion } from '../../lib/bedrock-region-check.ts';
import { API_SERVER_ERRORS_THRESHOLD } from '../../lib/constructs/service-alarms.ts';
import { eventWorkers, queueWorkers } from '../../src/routes.ts';
import { buildNotesApp, getAttLogicalId, resourcesOfType, STAGE } from './support.ts';

const { template } = buildNotesApp();
const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
const topics = Object.entries(resourcesOfType(template, 'AWS::SNS::Topic'));
const queues = Object.values(resourcesOfType(template, 'AWS::SQS::Queue'));

/** The alarms on one metric, by the value of their first dimension (a function, queue or API). */
function alarmsOn(metricName: string): typeof alarms {
  return alarms.filter((alarm) => alarm.Properties.MetricName === metricName);
}

function dimensionOf(alarm: (typeof alarms)[number]): unknown {
  return (alarm.Properties.Dimensions as Array<{ Value: unknown }>)[0]?.Value;
}

describe('on AWS, every failure lands where a person sees it', () => {
  it('has the alarm topic even without an alarm email, with no subscriber until one is added', () => {
    expect(topics.map(([, topic]) => topic.Properties.TopicName)).toEqual([`notes-${STAGE}-alarms`]);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('makes every alarm notify the topic when it fires and when it is back to OK', () => {
    const [topicId] = topics[0] ?? [];
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
    }
  });

  it('alarms on any error and any throttle of each queue and event worker', () => {
    const workers = [...Object.keys(queueWorkers), ...Object.keys(eventWorkers)];
    for (const metricName of ['Errors', 'Throttles']) {
      const watched = alarmsOn(metricName).map((alarm) => {
        expect(alarm.Properties).toMatchObject({
          Namespace: 'AWS/Lambda',
          Statistic: 'Sum',
          Period: 300,
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
          TreatMissingData: 'notBreaching',
        });
        return (dimensionOf(alarm) as { Ref: string }).Ref;
      });
      const functionIds = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))
        .filter(([, fn]) => workers.some((name) => fn.Properties.FunctionName === `notes-${STAGE}-${name}`))
        .map(([id]) => id);
      expect(watched.sort()).toEqual(functionIds.sort());
    }
  });

  it('alarms when any job ends failed, per worker, on the counts the workers publish (a recording that is not audio is not counted)', () => {
    const watched = Object.fromEntries(
      alarms.flatMap((alarm) => {
        const metrics = (alarm.Properties.Metrics ?? []) as Array<{
          Expression?: string;
          MetricStat?: {
            Metric: { Namespace: string; MetricName: string; Dimensions: unknown };
            Stat: string;
            Period: number;
          };
        }>;
        const counted = metrics.filter((m) => m.MetricStat?.Metric.Namespace === 'Notes');
        if (counted.length === 0) return [];
        for (const { MetricStat } of counted) {
          expect(MetricStat).toMatchObject({
            Stat: 'Sum',
            Period: 300,
            Metric: { Dimensions: [{ Name: 'service', Value: 'notes' }] },
          });
        }
        expect(metrics.find((m) => m.Expression)?.Expression).toBe(
          counted.map((_, i) => `FILL(m${i}, 0)`).join(' + '),
        );
        expect(alarm.Properties).toMatchObject({
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        });
        return [
          [
            String(alarm.Properties.AlarmDescription).split(' ended')[0],
            counted.map((m) => m.MetricStat?.Metric.MetricName),
          ],
        ];
      }),
    );
    expect(watched).toEqual({
      'One or more transcriptions': ['transcription_failed', 'transcription_dead_letter_failed'],
      'One or more Insights or artifacts': [
        'insights_failed',
        'insights_dead_letter_failed',
        'artifact:epiphany_failed',
        'artifact:epiphany_dead_letter_failed',
        'artifact:deep_research_failed',
        'artifact:deep_research_dead_letter_failed',
        'artifact:podcast_failed',
        'artifact:podcast_dead_letter_failed',
      ],
      'One or more jobs the reconciler recovered': ['reconciled_failed'],
    });
  });

  it(`alarms when the API answers ${API_SERVER_ERRORS_THRESHOLD} or more 5xx in five minutes`, () => {
    const [alarm, ...others] = alarmsOn('5xx');
    expect(others).toHaveLength(0);
    expect(alarm?.Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      Statistic: 'Sum',
      Period: 300,
      Threshold: API_SERVER_ERRORS_THRESHOLD,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(dimensionOf(alarm ?? { Type: '', Properties: {} })).toEqual({
      Ref: expect.stringMatching(/^ApiHttpApi/),
    });
  });

  it('alarms when the oldest message of a work queue has waited too long: 10 minutes for uploads, 30 for transcription, an hour for generation', () => {
    const ages = Object.fromEntries(
      alarmsOn('ApproximateAgeOfOldestMessage').map((alarm) => {
        const queue = resourcesOfType(template, 'AWS::SQS::Queue')[getAttLogicalId(dimensionOf(alarm)) ?? ''];
        return [queue?.Properties.QueueName, alarm.Properties.Threshold];
      }),
    );
    expect(ages).toEqual({
      [`notes-${STAGE}-uploads`]: 600,
      [`notes-${STAGE}-transcription`]: 1800,
      [`notes-${STAGE}-generation`]: 3600,
    });
  });

  it('keeps every message of every queue, work and dead-letter alike, for 14 days', () => {
    expect(queues.length).toBe(7);
    for (const queue of queues) expect(queue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('refuses at deployment, before any resource is made, a geographic model profile outside its Regions', () => {
    const rules = Object.values(template.toJSON().Rules ?? {}) as Array<{
      Assertions: Array<{
        Assert: { 'Fn::Contains': [string[], { Ref: string }] };
        AssertDescription: string;
      }>;
    }>;
    const regionRule = rules.find((rule) => JSON.stringify(rule).includes('AWS::Region'));
    const [assertion] = regionRule?.Assertions ?? [];
    expect(assertion?.Assert['Fn::Contains']).toEqual([
      ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
      { Ref: 'AWS::Region' },
    ]);
    expect(assertion?.AssertDescription).toMatch(
      /us\.anthropic\.claude-sonnet-4-6.*offered only in us-east-1/,
    );
  });
});

describe('the Bedrock model and the deploy Region', () => {
  const stackIn = (region?: string) => new Stack(new App(), 'Check', region ? { env: { region } } : {});

  it('refuses at synth a us. profile for a stack in eu-west-1, naming the model, the Region and the fix', () => {
    expect(() =>
      requireModelsServedInRegion(stackIn('eu-west-1'), ['us.anthropic.claude-sonnet-4-6']),
    ).toThrow(
      /"us\.anthropic\.claude-sonnet-4-6" .* offered only in us-east-1, .*deploys to eu-west-1.*eu\.\|apac\.\|global\./,
    );
  });

  it('refuses at synth when only the CLI knows the Region (an environment-agnostic stack)', () => {
    expect(() =>
      requireModelsServedInRegion(stackIn(), ['us.anthropic.claude-sonnet-4-6'], undefined, 'ap-southeast-2'),
    ).toThrow(/deploys to ap-southeast-2/);
  });

  it('accepts the eu. profile in eu-west-1, a global. profile and a plain model ID anywhere, with no rule for the latter two', () => {
    const regionRules = (stack: Stack) =>
      Object.keys(Template.fromStack(stack).toJSON().Rules ?? {}).filter((id) =>
        id.startsWith('BedrockModel'),
      );
    const europe = stackIn('eu-west-1');
    requireModelsServedInRegion(europe, ['eu.anthropic.claude-sonnet-4-6']);
    expect(regionRules(europe)).toEqual(['BedrockModel0Region']);
    const elsewhere = stackIn('sa-east-1');
    requireModelsServedInRegion(elsewhere, ['global.anthropic.claude-sonnet-4-6', 'amazon.nova-pro-v1:0']);
    expect(regionRules(elsewhere)).toEqual([]);
  });

  it('checks against the Regions given by bedrockProfileRegions when the operator names them', () => {
    expect(() =>
      requireModelsServedInRegion(
        stackIn('ca-central-1'),
        ['us.anthropic.claude-sonnet-4-6'],
        ['ca-central-1'],
      ),
    ).not.toThrow();
  });

  it('refuses at synth the bare ID of a Claude model that only an inference profile invokes, naming the profile to use', () => {
    for (const modelId of [
      'anthropic.claude-sonnet-4-6',
      'anthropic.claude-3-7-sonnet-20250219-v1:0',
      'anthropic.claude-opus-4-1-20250805-v1:0',
    ]) {
      expect(() => requireModelsServedInRegion(stackIn('us-east-1'), [modelId])).toThrow(
        new RegExp(
          `"${modelId.replaceAll('.', '\\.')}" cannot be invoked on demand.*"us\\.${modelId.replaceAll('.', '\\.')}"`,
        ),
      );
    }
    // Older Claude models, other providers and every profile are invoked as given.
    for (const modelId of [
      'anthropic.claude-3-haiku-20240307-v1:0',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      'amazon.nova-pro-v1:0',
      'us.anthropic.claude-sonnet-4-6',
    ]) {
      expect(() => requireModelsServedInRegion(stackIn('us-east-1'), [modelId])).not.toThrow();
    }
  });
});
