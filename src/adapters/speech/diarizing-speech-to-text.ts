import type {
  RecognitionHints,
  RecognitionProgress,
  RecognitionResult,
  SpeechToText,
} from '../../ports/speech-to-text.ts';
import { abortError } from './abort.ts';
import { assignSpeakers } from './diarization/assign.ts';
import { diarizeFile } from './diarization/diarize-file.ts';
import type { SpeakerTurn } from './diarization/types.ts';

/**
 * Adds speaker labels to an engine that has none (pocketsphinx, most whisper servers): the recording
 * is diarized while the engine recognises it, in parallel (in a worker thread, on another core), and
 * each word gets the speaker whose turn it falls in. A diarization failure never costs the
 * transcript: the words keep the default speaker.
 */
export class DiarizingSpeechToText implements SpeechToText {
  constructor(
    private readonly engine: SpeechToText,
    private readonly options: { ffmpegPath?: string; onDiarizationError?: (error: unknown) => void } = {},
  ) {}

  async transcribe(
    audioPath: string,
    onProgress?: (progress: RecognitionProgress) => Promise<void> | void,
    hints: RecognitionHints = {},
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    // Also stops the diarization when recognition fails: nobody would wait for its result.
    const diarization = new AbortController();
    const forward = () => diarization.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    if (signal?.aborted) forward();
    const turns: Promise<SpeakerTurn[]> = diarizeFile(
      audioPath,
      {
        ...(hints.speakersExpected ? { speakersExpected: hints.speakersExpected } : {}),
        ...(this.options.ffmpegPath ? { ffmpegPath: this.options.ffmpegPath } : {}),
      },
      diarization.signal,
    ).catch((error: unknown) => {
      if (!diarization.signal.aborted) this.options.onDiarizationError?.(error);
      return [];
    });
    try {
      const result = await this.engine.transcribe(audioPath, onProgress, hints, signal);
      if (result.words.some((word) => word.speaker !== undefined)) {
        diarization.abort();
        await turns;
        return result;
      }
      const labelled = { ...result, words: assignSpeakers(result.words, await turns) };
      if (signal?.aborted) throw abortError(signal);
      return labelled;
    } catch (error) {
      diarization.abort();
      await turns; // its ffmpeg and thread are gone before this rejects
      throw signal?.aborted ? abortError(signal) : error;
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }
}
