import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj } from '@middy/core';

/**
 * X-Ray tracing and CloudWatch metrics (embedded metric format), from Powertools.
 *
 * The tracer is loaded on Lambda only: the X-Ray SDK behind it installs an async hook on every
 * promise of the process when it is imported, even with tracing off, which cost the local runtime
 * (dynalite and s3rver share its process) about a third of its request rate. The local runtime sets
 * POWERTOOLS_METRICS_DISABLED so no metric lines are printed.
 */
const onLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
const tracing = onLambda
  ? {
      tracer: new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: 'notes' }),
      captureLambdaHandler: (await import('@aws-lambda-powertools/tracer/middleware')).captureLambdaHandler,
    }
  : undefined;

export const metrics = new Metrics({
  serviceName: 'notes',
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Notes',
});

/** Middy middlewares every handler uses: a traced invocation and flushed metrics. */
export function observed(): MiddlewareObj[] {
  const flushMetrics = logMetrics(metrics) as MiddlewareObj;
  return tracing
    ? [tracing.captureLambdaHandler(tracing.tracer) as MiddlewareObj, flushMetrics]
    : [flushMetrics];
}

/** An AWS SDK client whose calls appear as X-Ray subsegments (on Lambda; elsewhere the client itself). */
export function traced<T>(client: T): T {
  return tracing ? tracing.tracer.captureAWSv3Client(client) : client;
}

export function countOutcome(name: string, outcome: string): void {
  metrics.addMetric(`${name}_${outcome}`, MetricUnit.Count, 1);
}
