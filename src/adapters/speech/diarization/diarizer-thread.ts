/**
 * Thread entry of the diarizer (see diarize-file.ts): MFCC, pitch, voice activity and clustering run
 * here, off the event loop that serves the API. Bundled as diarizer-thread.mjs (lib/bundling.ts).
 */
import { lowerThisThread } from '../background-priority.ts';
import { serveStreamJobs } from '../threads/serve-stream-jobs.ts';
import { Diarizer } from './diarize.ts';
import type { DiarizerJob } from './types.ts';

// Diarizing can wait; the API that shares these cores cannot (this lowers this thread alone; jobs may
// start before it is done).
void lowerThisThread();

serveStreamJobs((init) => {
  const { speakersExpected } = init as DiarizerJob;
  const diarizer = new Diarizer();
  return {
    push: (chunk) => diarizer.push(chunk),
    finish: () => diarizer.finish(speakersExpected),
  };
});
