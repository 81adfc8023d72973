import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { METRICS_NAMESPACE, METRICS_SERVICE, outcomeMetric } from './outcome-metrics.ts';

/**
 * X-Ray tracing and CloudWatch metrics (embedded metric format), from Powertools.
 *
 * The tracer is loaded only on Lambda with tracing on (Powertools' POWERTOOLS_TRACE_ENABLED, which
 * the stack leaves on): the X-Ray SDK behind it (with semver and cls-hooked, ~100 KB) is a chunk of
 * its own that a cold start without tracing never reads, and it installs an async hook on every
 * promise of the process when it is imported, which cost the local runtime (dynalite and s3rver
 * share its process) about a third of its request rate. The local runtime sets
 * POWERTOOLS_METRICS_DISABLED so no metric lines are printed.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  // As the tracer reads the setting: only "false" turns it off.
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME) && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';
}

const tracing = tracingEnabled()
  ? {
      tracer: new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: 'notes' }),
      captureLambdaHandler: (await import('@aws-lambda-powertools/tracer/middleware')).captureLambdaHandler,
    }
  : undefined;

/** Made by the first count: the API handlers count nothing and never load Powertools Metrics. */
let metrics: Metrics | undefined;

/** Middy middlewares every handler uses: a traced invocation and flushed metrics. */
export function observed(): MiddlewareObj[] {
  const flushMetrics = { after: publishMetrics, onError: publishMetrics };
  return tracing
    ? [tracing.captureLambdaHandler(tracing.tracer) as MiddlewareObj, flushMetrics]
    : [flushMetrics];
}

/**
 * Publishes the invocation's metrics, if it emitted any. Powertools' logMetrics middleware publishes
 * after every invocation and, when there is nothing to publish, logs the warning "No application
 * metrics to publish" (most invocations count nothing); dimensions and metadata are cleared either
 * way so that none leaks into the next invocation.
 */
export function publishMetrics(): void {
  if (!metrics) return;
  if (metrics.hasStoredMetrics()) {
    metrics.publishStoredMetrics();
    return;
  }
  metrics.clearDimensions();
  metrics.clearMetadata();
}

/** An AWS SDK client whose calls appear as X-Ray subsegments (on Lambda; elsewhere the client itself). */
export function traced<T>(client: T): T {
  return tracing ? tracing.tracer.captureAWSv3Client(client) : client;
}

/** Counts one outcome of a piece of work (src/outcome-metrics.ts names the metric). */
export async function countOutcome(name: string, outcome: string): Promise<void> {
  const { Metrics, MetricUnit } = await import('@aws-lambda-powertools/metrics');
  metrics ??= new Metrics({
    serviceName: METRICS_SERVICE,
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
  });
  metrics.addMetric(outcomeMetric(name, outcome), MetricUnit.Count, 1);
}
