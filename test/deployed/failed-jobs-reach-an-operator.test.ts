/**
 * A job that fails without any function failing still reaches an operator: the generation worker's
 * deployed bundle meets a Bedrock model the account may not use (AccessDeniedException, as Bedrock
 * answers before model access is granted). The invocation succeeds (the message is handled: retrying
 * cannot grant access), the job ends `failed` with a detail the person can act on, and the bundle
 * prints the metric the stack's GenerationJobsFailed alarm watches (CloudWatch's embedded metric
 * format, as Lambda sends it to CloudWatch Logs).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedJobMetrics } from '../../src/outcome-metrics.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';
import { sqsEvent } from './support/aws-events.ts';
import { bodyOf, Deployment, messageFor, rest } from './support/deployment.ts';

let deployment: Deployment;
let apiKey: string;
let accountId: string;
const noteId = randomUUID();

beforeAll(async () => {
  deployment = await Deployment.start();
  const { getServices } = await import('../../src/wiring/services.ts');
  const { createAccount } = await import('../../src/domain/accounts.ts');
  const created = await createAccount(getServices().accounts, 'deployed-failures');
  apiKey = created.api_key;
  accountId = created.account.account_id;
  await storeTranscribedNote(getServices(), accountId, {
    id: noteId,
    title: 'Budget review',
    text: 'We agreed to send the draft with the budget numbers on Friday.',
  });
}, 300_000);

afterAll(() => deployment?.stop());

/** The metrics of the embedded-metric-format lines a bundle printed: name -> its value. */
function printedMetrics(logs: string): Map<string, { value: unknown; dimensions: unknown }> {
  const found = new Map<string, { value: unknown; dimensions: unknown }>();
  for (const line of logs.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    const record = JSON.parse(line) as Record<string, unknown> & {
      _aws: {
        CloudWatchMetrics: Array<{
          Namespace: string;
          Dimensions: string[][];
          Metrics: Array<{ Name: string }>;
        }>;
      };
    };
    for (const directive of record._aws.CloudWatchMetrics) {
      for (const metric of directive.Metrics) {
        found.set(`${directive.Namespace}/${metric.Name}`, {
          value: record[metric.Name],
          dimensions: Object.fromEntries((directive.Dimensions[0] ?? []).map((name) => [name, record[name]])),
        });
      }
    }
  }
  return found;
}

describe('a generation job that a denied model fails', () => {
  it('ends failed with the reason, the invocation succeeds, and the metric the alarm watches is printed', async () => {
    const queued = await deployment.viaBundle(
      'generateInsights',
      rest(apiKey, 'generateInsights', noteId, {}),
    );
    expect(queued).toMatchObject({ statusCode: 202 });
    const [message] = await deployment.receiveMessages(deployment.emulators.queueUrls.generation, 1);
    deployment.bedrock.replies.push({
      error: 'AccessDeniedException',
      status: 403,
      message: "You don't have access to the model with the specified model ID.",
    });
    const logsBefore = deployment.logs.length;
    const handled = await deployment.viaBundle(
      'generationWorker',
      sqsEvent([messageFor(message ? [message] : [], noteId)], deployment.emulators.queueArns.generation),
      { POWERTOOLS_METRICS_DISABLED: 'false' },
    );
    expect(handled).toEqual({ batchItemFailures: [] });

    const read = await deployment.viaBundle('getInsights', rest(apiKey, 'getInsights', noteId));
    const job = bodyOf<{ status: string; detail: string }>(read);
    expect(job.status).toBe('failed');
    expect(job.detail).toMatch(/access/i);

    const metrics = printedMetrics(deployment.logs.slice(logsBefore).join('\n'));
    expect(metrics.get('Notes/insights_failed')).toEqual({ value: 1, dimensions: { service: 'notes' } });
    expect(failedJobMetrics.generation).toContain('insights_failed');
  });
});
