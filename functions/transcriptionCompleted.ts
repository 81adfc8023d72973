import middy from '@middy/core';
import { TranscribeJobs } from '#src/adapters/transcribe/transcribe-jobs.ts';
import { TranscribeSpeechToText } from '#src/adapters/transcribe/transcribe-speech-to-text.ts';
import { finishBatchTranscription } from '#src/domain/transcription-worker.ts';
import { logger } from '#src/logging.ts';
import { countOutcome, observed } from '#src/observability.ts';
import { getWorkerServices } from '#src/wiring/worker-services.ts';

/**
 * Finishes a note's transcription when its Amazon Transcribe job ends: EventBridge delivers the
 * "Transcribe Job State Change" event. After an error Lambda retries the event twice, then sends it to
 * the transcribe-events dead-letter queue (alarmed); the scheduled reconciler (reconcileJobs) then
 * finishes the job from what Transcribe says, through the same domain code.
 */
export const handler = middy<unknown, void>()
  .use(observed())
  .handler(async (event) => {
    const services = getWorkerServices();
    const speech = services.speech;
    if (!(speech instanceof TranscribeSpeechToText)) {
      throw new Error('transcriptionCompleted needs NOTES_SPEECH_ENGINE=transcribe');
    }
    const change = TranscribeJobs.parseJobStateChange(event);
    const job = speech.parseJobName(change.jobName);
    if (!job) {
      logger.warn('ignoring a Transcribe job of another deployment', { jobName: change.jobName });
      return;
    }
    const outcome = await finishBatchTranscription(
      { ...services, speech },
      {
        job,
        succeeded: change.status === 'COMPLETED',
        ...(change.failureReason ? { failureReason: change.failureReason } : {}),
        permanent: TranscribeJobs.failureIsPermanent(change.failureReason),
        transient: TranscribeJobs.failureIsTransient(change.failureReason),
      },
    );
    await countOutcome('transcription', outcome);
    logger.info('transcription', { noteId: job.noteId, attempt: job.attempt, outcome });
  });
