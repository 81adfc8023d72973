/**
 * A thread entry for the pool's tests: counts the bytes it is given, and can fail on a chunk or
 * compute for ever on `finish` (to show that an abort ends even a busy thread).
 */
import { threadId } from 'node:worker_threads';
import { serveStreamJobs } from '../../src/adapters/speech/threads/serve-stream-jobs.ts';

export interface CountingJob {
  failOnChunk?: boolean;
  spinOnFinish?: boolean;
}

serveStreamJobs((init) => {
  const job = init as CountingJob;
  let bytes = 0;
  let sum = 0;
  return {
    push(chunk) {
      if (job.failOnChunk) throw new RangeError('this thread refuses chunks');
      bytes += chunk.length;
      for (const byte of chunk) sum = (sum + byte) % 65_521;
    },
    finish() {
      while (job.spinOnFinish) sum = (sum + 1) % 65_521;
      return { bytes, sum, threadId };
    },
  };
});
