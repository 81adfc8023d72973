import { GenerationFailedError } from '../ports/generation-errors.ts';
import type { InsightsEngine } from '../ports/insights-engine.ts';
import { forEngine, madeWith } from './collection-instructions.ts';
import type { DomainDeps } from './deps.ts';
import { distinctInsights } from './distinct-insights.ts';
import { generationSubject } from './generation-source.ts';
import { type Insights, insightsContent } from './insights.ts';
import { GENERATION_STAGES } from './job.ts';
import { holdJob, JobLostError } from './job-hold.ts';
import { claimJob, completeJob, failJob } from './job-transitions.ts';
import { objectKeys } from './object-keys.ts';
import { NO_TRANSCRIPTION, readTranscription } from './stored-results.ts';
import { madeFrom } from './transcript-freshness.ts';
import { passesWithTime } from './transient-faults.ts';

export interface GenerationDeps extends DomainDeps {
  insights: InsightsEngine;
}

export type GenerationOutcome = 'completed' | 'failed' | 'skipped';

const RETRY_HINT = 'Generate the Insights again to retry.';

/**
 * Generates a note's Insights. Safe to run twice for the same request (the queue delivers at least
 * once): the claim lets one run work, the result has a fixed key. A throttled provider is thrown
 * for the queue to retry later; output the engine could not make valid fails the job with a detail
 * (generateInsights again retries).
 */
export async function runInsights(
  deps: GenerationDeps,
  request: { accountId: string; noteId: string },
): Promise<GenerationOutcome> {
  const { accountId, noteId } = request;
  const subject = await generationSubject(deps, accountId, noteId);
  if (!subject) return 'skipped';
  const { note, instructions } = subject;
  const claimed = await claimJob(deps, accountId, noteId, 'insights', GENERATION_STAGES.generating);
  if (!claimed) return 'skipped';
  const key = objectKeys.insights(accountId, noteId);
  return holdJob(
    deps,
    claimed,
    { outputs: [key], requeueStage: GENERATION_STAGES.queued },
    async (signal) => {
      const transcription = await readTranscription(deps, accountId, noteId);
      if (transcription === 'unreadable')
        return failJob(deps, accountId, noteId, 'insights', NO_TRANSCRIPTION, claimed);
      let content: Insights;
      try {
        const generated = await deps.insights.generateInsights({
          transcription,
          ...(note.speaker_names ? { speaker_names: note.speaker_names } : {}),
          title: note.title,
          reference_time: note.audio?.uploaded_at ?? note.created_at,
          ...(instructions.length > 0 ? { instructions: forEngine(instructions) } : {}),
        });
        content = {
          note_id: noteId,
          schema_version: 1,
          engine: deps.insights.name,
          generated_at: deps.now(),
          ...madeFrom(transcription),
          ...madeWith(instructions, deps.insights.followsInstructions),
          // Any engine's lists, each item once: a looped recording or a model can repeat itself.
          ...distinctInsights(insightsContent.parse(generated)),
        };
      } catch (error) {
        // Throttling and a full disk pass with time: the queue retries. Anything else the engine could not recover
        // from (it retries provider hiccups itself) ends the job; the detail never quotes model output.
        if (passesWithTime(error) || signal.aborted) throw error;
        const detail =
          error instanceof GenerationFailedError ? error.message : 'The Insights could not be generated';
        return failJob(deps, accountId, noteId, 'insights', `${detail}. ${RETRY_HINT}`, claimed);
      }
      signal.throwIfAborted();
      // Refused: this attempt no longer holds the job: write nothing.
      if (!(await deps.notes.updateJobStage(claimed, GENERATION_STAGES.saving, deps.now()))) {
        throw new JobLostError();
      }
      await deps.blobs.putJson(key, content);
      return completeJob(deps, claimed, [key]);
    },
  );
}
