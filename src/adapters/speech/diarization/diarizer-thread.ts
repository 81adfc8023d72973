/**
 * Thread entry of the diarizer (see diarize-file.ts): MFCC, pitch, voice activity and clustering run
 * here, off the event loop that serves the API. Bundled as diarizer-thread.mjs (lib/bundling.ts).
 */
import { lowerThisThread } from '../background-priority.ts';
import { serveStreamJobs } from '../threads/serve-stream-jobs.ts';
import { sherpaVoiceEmbedder, type VoiceEmbedder } from '../voices/voice-embedder.ts';
import { DEFAULT_TUNING, Diarizer } from './diarize.ts';
import type { DiarizerJob } from './types.ts';

/** The voice model, loaded once a thread (about 30 MB for WeSpeaker ResNet34). */
const embedders = new Map<string, VoiceEmbedder>();

// Diarizing can wait; the API that shares these cores cannot (this lowers this thread alone; jobs may
// start before it is done).
void lowerThisThread();

serveStreamJobs((init) => {
  const { speakersExpected, voiceModel } = init as DiarizerJob;
  let embedder: VoiceEmbedder | undefined;
  if (voiceModel) {
    embedder = embedders.get(voiceModel.path) ?? sherpaVoiceEmbedder(voiceModel);
    embedders.set(voiceModel.path, embedder);
  }
  const diarizer = new Diarizer(DEFAULT_TUNING, embedder);
  return {
    push: (chunk) => diarizer.push(chunk),
    finish: () => diarizer.finish(speakersExpected),
  };
});
