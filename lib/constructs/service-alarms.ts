import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { failedJobMetrics, METRICS_NAMESPACE, METRICS_SERVICE } from '../../src/outcome-metrics.ts';
import type { Alerts } from './alerts.ts';
import type { NotesFunction } from './notes-function.ts';

/**
 * Server errors a user saw in five minutes before the API alarm fires. A provider throttling now and
 * then answers a few 503s with Retry-After that a client retries; a run of them is an outage.
 */
export const API_SERVER_ERRORS_THRESHOLD = 5;

export interface ServiceAlarmsProps {
  alerts: Alerts;
  httpApi: HttpApi;
  /** Functions that no person waits on (queue and event workers): their failures are otherwise unseen. */
  backgroundFunctions: Record<string, NotesFunction>;
}

/** What each failed-jobs alarm says, by the workers whose jobs it counts. */
const FAILED_JOBS: Record<keyof typeof failedJobMetrics, { id: string; what: string }> = {
  transcription: { id: 'TranscriptionJobsFailed', what: 'transcriptions' },
  generation: { id: 'GenerationJobsFailed', what: 'Insights or artifacts' },
  recovery: { id: 'RecoveredJobsFailed', what: 'jobs the reconciler recovered' },
};

/**
 * The alarms besides the queues' own: jobs that ended failed, a background function that fails or is
 * throttled, and the API answering 5xx (which covers the API's functions: an error or a throttle
 * there is a 5xx). A job that fails is not a function error: the workers catch what ends a job
 * (a provider refusing, a permission missing, retries spent) and count it; those counts are alarmed.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const every = { period: Duration.minutes(5), statistic: 'Sum' } as const;
    const add = (alarmId: string, description: string, metric: IMetric, threshold = 0) => {
      this.alarms.push(
        props.alerts.notify(
          new Alarm(this, alarmId, {
            alarmDescription: description,
            metric,
            threshold,
            comparisonOperator:
              threshold === 0
                ? ComparisonOperator.GREATER_THAN_THRESHOLD
                : ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: TreatMissingData.NOT_BREACHING,
          }),
        ),
      );
    };

    for (const [group, names] of Object.entries(failedJobMetrics)) {
      const { id, what } = FAILED_JOBS[group as keyof typeof failedJobMetrics];
      add(
        id,
        `One or more ${what} ended failed in five minutes (the job's detail in the API says why: model access, permissions, throttling past the retries, a result that could not be saved)`,
        failedJobs(names),
      );
    }
    for (const [name, fn] of Object.entries(props.backgroundFunctions)) {
      add(
        `${name}Errors`,
        `${fn.function.node.path} failed (an error or a timeout): its work is retried, then dead-lettered`,
        fn.function.metricErrors(every),
      );
      add(
        `${name}Throttles`,
        `${fn.function.node.path} was throttled: the account's Lambda concurrency is used up`,
        fn.function.metricThrottles(every),
      );
    }
    add(
      'ApiServerErrors',
      `The API answered ${API_SERVER_ERRORS_THRESHOLD} or more 5xx in five minutes (function errors, throttles, timeouts, providers down)`,
      props.httpApi.metricServerError(every),
      API_SERVER_ERRORS_THRESHOLD,
    );
  }
}

/** The sum over five minutes of the failure counts `names` (a name nothing emitted counts 0). */
function failedJobs(names: readonly string[]): MathExpression {
  // CloudWatch refuses an alarm on more than 10 metrics: split the group before it grows past that.
  if (names.length > 10) throw new Error(`A failed-jobs alarm can watch 10 metrics, not ${names.length}`);
  const usingMetrics = Object.fromEntries(
    names.map((metricName, i) => [
      `m${i}`,
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: METRICS_SERVICE },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    period: Duration.minutes(5),
    label: 'jobs failed',
  });
}
