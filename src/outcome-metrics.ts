import { JOB_KINDS } from './domain/job.ts';

/**
 * The metrics the workers publish (CloudWatch embedded metric format through Powertools: namespace
 * `Notes`, dimension `service` = `notes`): one count per outcome of each piece of work, named
 * `<work>_<outcome>`. The stack's alarms watch the failures among them (lib/constructs/service-alarms.ts).
 */
export const METRICS_NAMESPACE = 'Notes';
export const METRICS_SERVICE = 'notes';

export function outcomeMetric(work: string, outcome: string): string {
  return `${work}_${outcome}`;
}

const GENERATION_KINDS = JOB_KINDS.filter((kind) => kind !== 'transcription');

/**
 * Jobs that ended `failed` for a reason that is not the person's (a provider refusing, a permission
 * missing, retries spent, a result that cannot be saved), by the worker that ends them: each is a
 * job a person sees failed, so an operator hears of it. A recording that is not audio ends
 * `rejected`, not counted here.
 */
export const failedJobMetrics = {
  transcription: [
    outcomeMetric('transcription', 'failed'),
    outcomeMetric('transcription_dead_letter', 'failed'),
  ],
  generation: GENERATION_KINDS.flatMap((kind) => [
    outcomeMetric(kind, 'failed'),
    outcomeMetric(`${kind}_dead_letter`, 'failed'),
  ]),
  recovery: [outcomeMetric('reconciled', 'failed')],
} as const;
