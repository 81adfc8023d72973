import { describe, expect, it } from 'vitest';
import { queueWorkers } from '../../src/routes.ts';
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

const { template } = buildNotesApp({ alarmEmail: 'ops@example.com' });
const queues = resourcesOfType(template, 'AWS::SQS::Queue');
const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
const functions = functionsByName(template);
/** The rules on events (the reconciler's schedule is tested in job-reconciler.test.ts). */
const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter(
  (rule) => rule.Properties.EventPattern !== undefined,
);

const redriveTargets = new Set(
  Object.values(queues).flatMap((q) => {
    const redrive = q.Properties.RedrivePolicy as { deadLetterTargetArn: unknown } | undefined;
    return redrive ? [getAttLogicalId(redrive.deadLetterTargetArn)] : [];
  }),
);
const ruleDeadLetterQueues = new Set(
  rules.flatMap((rule) =>
    (rule.Properties.Targets as Array<{ DeadLetterConfig?: { Arn: unknown } }>).map((t) =>
      getAttLogicalId(t.DeadLetterConfig?.Arn),
    ),
  ),
);

function queueIdByName(name: string): string {
  const entry = Object.entries(queues).find(([, q]) => q.Properties.QueueName === name);
  if (!entry) throw new Error(`No queue ${name}`);
  return entry[0];
}

function consumerTimeoutOf(queueId: string): number | undefined {
  const mapping = mappings.find((m) => getAttLogicalId(m.Properties.EventSourceArn) === queueId);
  const functionRef = (mapping?.Properties.FunctionName as { Ref: string } | undefined)?.Ref;
  const fn = [...functions.values()].find((f) => f.logicalId === functionRef);
  return fn?.resource.Properties.Timeout as number | undefined;
}

describe('the queues', () => {
  it.each(Object.entries(queues).map(([id, q]) => [q.Properties.QueueName as string, id]))(
    '%s is either a work queue redriving to a dead-letter queue after 3 receives, or a dead-letter queue',
    (_name, id) => {
      const queue = queues[id];
      const redrive = queue?.Properties.RedrivePolicy as
        | { deadLetterTargetArn: unknown; maxReceiveCount: number }
        | undefined;
      if (redrive) {
        expect(redrive.maxReceiveCount).toBe(3);
        expect(Object.keys(queues)).toContain(getAttLogicalId(redrive.deadLetterTargetArn));
      } else {
        expect(redriveTargets.has(id) || ruleDeadLetterQueues.has(id)).toBe(true);
        expect(queue?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      }
    },
  );

  it('are the uploads, transcription and generation queues, each with its dead-letter queue', () => {
    for (const name of ['uploads', 'transcription', 'generation']) {
      const queue = queues[queueIdByName(`notes-${STAGE}-${name}`)];
      const redrive = queue?.Properties.RedrivePolicy as { deadLetterTargetArn: unknown };
      expect(getAttLogicalId(redrive.deadLetterTargetArn)).toBe(queueIdByName(`notes-${STAGE}-${name}-dlq`));
    }
  });

  it.each(Object.values(queues).map((q) => [q.Properties.QueueName as string, q]))(
    '%s is encrypted at rest with SQS-managed keys',
    (_name, queue) => {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    },
  );

  it('all have a queue policy denying requests without TLS', () => {
    const policies = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy'));
    const protectedQueues = new Set(
      policies
        .filter((p) =>
          (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement.some(
            (s) =>
              s.Effect === 'Deny' &&
              JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
          ),
        )
        .flatMap((p) => asList(p.Properties.Queues as unknown[]).map((q) => (q as { Ref: string }).Ref)),
    );
    expect([...protectedQueues].sort()).toEqual(Object.keys(queues).sort());
  });

  it.each(['uploads', 'uploads-dlq', 'transcription', 'transcription-dlq', 'generation', 'generation-dlq'])(
    '%s keeps a message invisible for six times its consumer timeout (AWS guidance for Lambda event sources)',
    (name) => {
      const id = queueIdByName(`notes-${STAGE}-${name}`);
      const timeout = consumerTimeoutOf(id);
      expect(timeout).toBeGreaterThan(0);
      expect(queues[id]?.Properties.VisibilityTimeout).toBe(6 * (timeout ?? 0));
    },
  );

  it('bring a failed transcription back within minutes even when nothing shortens its wait', () => {
    // Starting a Transcribe job takes seconds: a one-minute worker, so six minutes of visibility.
    expect(queues[queueIdByName(`notes-${STAGE}-transcription`)]?.Properties.VisibilityTimeout).toBe(360);
  });

  it('accept only this bucket, in this account, as the sender of upload events, on the uploads queue', () => {
    const policies = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy'));
    const fromS3 = policies.flatMap((p) =>
      (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement.filter(
        (s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 's3.amazonaws.com' }),
      ),
    );
    expect(fromS3).toHaveLength(1);
    expect(fromS3[0]).toMatchObject({
      Effect: 'Allow',
      Resource: { 'Fn::GetAtt': [queueIdByName(`notes-${STAGE}-uploads`), 'Arn'] },
      Condition: {
        ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringMatching(/^StorageDataBucket/), 'Arn'] } },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
    expect(asList(fromS3[0]?.Action as string | string[])).toContain('sqs:SendMessage');
  });

  it('raise an alarm, emailed, when a message reaches any dead-letter queue, and clear it when none has for five minutes', () => {
    const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
    const queueOf = (dimensions: unknown) =>
      // The QueueName dimension: { 'Fn::GetAtt': [queue, 'QueueName'] }.
      getAttLogicalId((dimensions as Array<{ Value: unknown }>)[0]?.Value);
    // A queue a dead-letter worker empties at once: its receives, and whatever still waits.
    const consumed = alarms.flatMap((alarm) => {
      const metrics = (alarm.Properties.Metrics ?? []) as Array<{
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: { MetricName: string; Dimensions: unknown }; Stat: string; Period: number };
      }>;
      const received = metrics.find((m) => m.MetricStat?.Metric.MetricName === 'NumberOfMessagesReceived');
      if (!received) return [];
      const waiting = metrics.find(
        (m) => m.MetricStat?.Metric.MetricName === 'ApproximateNumberOfMessagesVisible',
      );
      expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(received, 0) + FILL(waiting, 0)');
      expect(received.MetricStat).toMatchObject({ Stat: 'Sum', Period: 300 });
      expect(waiting?.MetricStat).toMatchObject({ Stat: 'Maximum', Period: 300 });
      expect(queueOf(waiting?.MetricStat?.Metric.Dimensions)).toBe(
        queueOf(received.MetricStat?.Metric.Dimensions),
      );
      expect(alarm.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
      expect(alarm.Properties.AlarmActions).toHaveLength(1);
      return [queueOf(received.MetricStat?.Metric.Dimensions)];
    });
    expect(consumed.sort()).toEqual([...redriveTargets].sort());
    // A queue services send to and nothing empties (the Transcribe events'): its sends, not its depth.
    const kept = alarms
      .filter((alarm) => alarm.Properties.MetricName === 'NumberOfMessagesSent')
      .map((alarm) => {
        expect(alarm.Properties).toMatchObject({
          Statistic: 'Sum',
          Period: 300,
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
        });
        return queueOf(alarm.Properties.Dimensions);
      });
    expect(kept.sort()).toEqual([...ruleDeadLetterQueues].sort());
    expect(
      alarms.filter((alarm) => alarm.Properties.MetricName === 'ApproximateNumberOfMessagesVisible'),
    ).toEqual([]);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('take a recording when its upload completes (ObjectCreated, key suffix /audio): on the uploads queue, not behind recognitions', () => {
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        QueueConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '/audio' }] } },
            QueueArn: { 'Fn::GetAtt': [queueIdByName(`notes-${STAGE}-uploads`), 'Arn'] },
          },
        ],
      },
    });
  });
});

describe('the workers', () => {
  it.each(Object.entries(queueWorkers))(
    '%s consumes its queue and reports partial batch failures',
    (name, worker) => {
      const fn = functions.get(`notes-${STAGE}-${name}`);
      const mapping = mappings.find(
        (m) => (m.Properties.FunctionName as { Ref: string }).Ref === fn?.logicalId,
      );
      const queueName = worker.queue.replace(/Dlq$/, '-dlq');
      expect(getAttLogicalId(mapping?.Properties.EventSourceArn)).toBe(
        queueIdByName(`notes-${STAGE}-${queueName}`),
      );
      expect(mapping?.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    },
  );

  it('every SQS event source mapping reports batch item failures', () => {
    expect(mappings.length).toBeGreaterThan(0);
    for (const mapping of mappings) {
      expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
  });

  it('the generation worker has minutes for its Bedrock and Polly calls: 15 minutes with 1 GB', () => {
    const fn = functions.get(`notes-${STAGE}-generationWorker`);
    expect(fn?.resource.Properties).toMatchObject({ Timeout: 900, MemorySize: 1024 });
  });

  it.each(Object.entries(queueWorkers))(
    '%s may change the visibility of messages on its own queue, and on no other',
    (name, worker) => {
      const queueId = queueIdByName(`notes-${STAGE}-${worker.queue.replace(/Dlq$/, '-dlq')}`);
      const statements = statementsOfFunction(template, `notes-${STAGE}-${name}`).filter((s) =>
        asList(s.Action).includes('sqs:ChangeMessageVisibility'),
      );
      expect(statements.map((s) => getAttLogicalId(s.Resource))).toEqual([queueId]);
      // The wrapper reads the queue's visibility timeout so as never to lengthen the wait.
      expect(asList(statements[0]?.Action ?? [])).toContain('sqs:GetQueueAttributes');
    },
  );

  it('limit concurrency: 10 transcription, 5 generation and 5 uploads invocations by default, 2 per dead-letter queue', () => {
    const maxConcurrency = (t: typeof template, queueName: string) =>
      (
        Object.values(resourcesOfType(t, 'AWS::Lambda::EventSourceMapping')).find(
          (m) => getAttLogicalId(m.Properties.EventSourceArn) === queueIdByName(queueName),
        )?.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined
      )?.MaximumConcurrency;
    expect(maxConcurrency(template, `notes-${STAGE}-transcription`)).toBe(10);
    expect(maxConcurrency(template, `notes-${STAGE}-generation`)).toBe(5);
    expect(maxConcurrency(template, `notes-${STAGE}-uploads`)).toBe(5);
    expect(maxConcurrency(template, `notes-${STAGE}-uploads-dlq`)).toBe(2);
    expect(maxConcurrency(template, `notes-${STAGE}-transcription-dlq`)).toBe(2);
    expect(maxConcurrency(template, `notes-${STAGE}-generation-dlq`)).toBe(2);
    const { template: configured } = buildNotesApp({
      transcriptionMaxConcurrency: '50',
      generationMaxConcurrency: 3,
    });
    expect(maxConcurrency(configured, `notes-${STAGE}-transcription`)).toBe(50);
    expect(maxConcurrency(configured, `notes-${STAGE}-generation`)).toBe(3);
  });

  it('the transcription worker takes one recording per invocation, for up to a minute with 1 GB (it only starts a Transcribe job)', () => {
    const fn = functions.get(`notes-${STAGE}-transcriptionWorker`);
    expect(fn?.resource.Properties).toMatchObject({ Timeout: 60, MemorySize: 1024 });
    const mapping = mappings.find(
      (m) => (m.Properties.FunctionName as { Ref: string }).Ref === fn?.logicalId,
    );
    expect(mapping?.Properties.BatchSize).toBe(1);
  });

  it('the uploads worker takes up to ten uploads per invocation, for up to 30 seconds with 512 MB (a few writes each)', () => {
    const fn = functions.get(`notes-${STAGE}-uploadReceived`);
    expect(fn?.resource.Properties).toMatchObject({ Timeout: 30, MemorySize: 512 });
    const mapping = mappings.find(
      (m) => (m.Properties.FunctionName as { Ref: string }).Ref === fn?.logicalId,
    );
    expect(mapping?.Properties.BatchSize).toBe(10);
  });

  it('transcriptionCompleted runs on the Transcribe job state change of this stage, with retries and a DLQ', () => {
    const fn = functions.get(`notes-${STAGE}-transcriptionCompleted`);
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule?.Properties.EventPattern).toEqual({
      source: ['aws.transcribe'],
      'detail-type': ['Transcribe Job State Change'],
      detail: {
        TranscriptionJobStatus: ['COMPLETED', 'FAILED'],
        TranscriptionJobName: [{ prefix: `notes-${STAGE}-` }],
      },
    });
    const [target] = defined(rule, 'the rule').Properties.Targets as Array<Record<string, unknown>>;
    expect(getAttLogicalId(target?.Arn)).toBe(fn?.logicalId);
    expect(target?.RetryPolicy).toBeDefined();
    expect(
      getAttLogicalId((defined(target, 'the rule target').DeadLetterConfig as { Arn: unknown }).Arn),
    ).toBe(queueIdByName(`notes-${STAGE}-transcribe-events-dlq`));
  });

  it('only the transcription worker starts Transcribe jobs, only of this stage', () => {
    const jobArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':transcribe:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          `:transcription-job/notes-${STAGE}-*`,
        ],
      ],
    };
    for (const [name] of functions) {
      const statements = statementsOfFunction(template, name).filter((s) =>
        asList(s.Action).some((a) => a.startsWith('transcribe:')),
      );
      const expected = {
        [`notes-${STAGE}-transcriptionWorker`]: ['transcribe:StartTranscriptionJob'],
        [`notes-${STAGE}-transcriptionCompleted`]: ['transcribe:GetTranscriptionJob'],
        [`notes-${STAGE}-reconcileJobs`]: ['transcribe:GetTranscriptionJob'],
      }[name];
      expect(actionsOf(statements)).toEqual(expected ?? []);
      for (const statement of statements) expect(statement.Resource).toEqual(jobArn);
    }
  });
});
