import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
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

/**
 * The alarms besides the queues' own: a background function that fails or is throttled, and the API
 * answering 5xx (which covers the API's functions: an error or a throttle there is a 5xx).
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const every = { period: Duration.minutes(5), statistic: 'Sum' } as const;
    const add = (alarmId: string, description: string, metric: Metric, threshold = 0) => {
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
