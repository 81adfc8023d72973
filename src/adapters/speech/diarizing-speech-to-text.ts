import type {
  RecognitionHints,
  RecognitionProgress,
  RecognitionResult,
  SpeechToText,
} from '../../ports/speech-to-text.ts';
import { assignSpeakers } from './diarization/assign.ts';
import { diarizeFile } from './diarization/diarize.ts';

/**
 * Adds speaker labels to an engine that has none (pocketsphinx, most whisper servers): the recording
 * is diarized while the engine recognises it, in parallel (a second core), and each word gets the
 * speaker whose turn it falls in. A diarization failure never costs the transcript: the words keep
 * the default speaker.
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
  ): Promise<RecognitionResult> {
    const turns = diarizeFile(audioPath, {
      ...(hints.speakersExpected ? { speakersExpected: hints.speakersExpected } : {}),
      ...(this.options.ffmpegPath ? { ffmpegPath: this.options.ffmpegPath } : {}),
    }).catch((error: unknown) => {
      this.options.onDiarizationError?.(error);
      return [];
    });
    const result = await this.engine.transcribe(audioPath, onProgress, hints);
    if (result.words.some((word) => word.speaker !== undefined)) return result;
    return { ...result, words: assignSpeakers(result.words, await turns) };
  }
}
