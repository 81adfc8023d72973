import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray tracing and CloudWatch metrics (embedded metric format). The tracer switches itself off
 * outside Lambda; the local runtime sets POWERTOOLS_METRICS_DISABLED so no metric lines are printed.
 */
export const tracer = new Tracer({ serviceName: 'notes' });
export const metrics = new Metrics({
  serviceName: 'notes',
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Notes',
});

export function countOutcome(name: string, outcome: string): void {
  metrics.addMetric(`${name}_${outcome}`, MetricUnit.Count, 1);
}
