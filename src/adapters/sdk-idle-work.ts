import type { MiddlewareStack } from '@smithy/types';

/**
 * Takes out of an AWS SDK client's middleware what works on every call for nothing here (measured
 * with bench/sdk-overhead.ts, the SDK alone with a canned answer; docs/benchmarks.md "The AWS SDK's
 * own work per call"):
 *
 * - everywhere, the logger middleware: it copies each input and output through the schema's
 *   sensitive-field filter (every item of a Query, attribute by attribute) to hand them to the
 *   client's logger, and no client of this service has one (the SDK's is a no-op);
 * - with a local stand-in, the user-agent middleware (it rebuilds and escapes the user-agent string
 *   on every call: the stand-ins never read it; on AWS it stays, AWS uses it) and the recursion
 *   detection middleware (it adds the Lambda trace header when it finds one in the environment, which
 *   the local runtime never sets).
 *
 * Signing, retries and checksums stay: the stand-ins check signatures as AWS does.
 */
export function withoutIdleWork<I extends object, O extends object>(
  stack: MiddlewareStack<I, O>,
  local: boolean,
): void {
  stack.remove('loggerMiddleware');
  if (!local) return;
  stack.remove('getUserAgentMiddleware');
  stack.remove('recursionDetectionMiddleware');
}
