import type { RecognitionHints, RecognitionResult, SpeechToText } from '../../ports/speech-to-text.ts';
import { abortError } from './abort.ts';
import { readsDecodedPcm } from './decoded-recording.ts';
import { assignSpeakers } from './diarization/assign.ts';
import { diarizeFile, diarizePcmFile } from './diarization/diarize-file.ts';
import type { DiarizeOptions, SpeakerTurn, VoiceModel } from './diarization/types.ts';
import type { ProgressCallback } from './progress-reporter.ts';

/**
 * Adds speaker labels to an engine that has none (pocketsphinx, most whisper servers): the recording
 * is diarized while the engine recognises it, in parallel (in a worker thread, on another core), and
 * each word gets the speaker whose turn it falls in. A diarization failure never costs the
 * transcript: the words keep the default speaker.
 *
 * An engine that reads decoded PCM (pocketsphinx) has the recording decoded once, and the engine and
 * the diarizer read the same file; one that needs the original file (an OpenAI-compatible server)
 * gets it, and the diarizer decodes it with an ffmpeg of its own.
 */
export class DiarizingSpeechToText implements SpeechToText {
  constructor(
    private readonly engine: SpeechToText,
    private readonly options: {
      ffmpegPath?: string;
      onDiarizationError?: (error: unknown) => void;
      /** The neural voice model to tell speakers apart with, when one is ready (voice-provision.ts). */
      voiceModel?: () => Promise<VoiceModel | undefined>;
    } = {},
  ) {}

  async transcribe(
    audioPath: string,
    onProgress?: ProgressCallback,
    hints: RecognitionHints = {},
    signal?: AbortSignal,
  ): Promise<RecognitionResult> {
    const engine = this.engine;
    if (!readsDecodedPcm(engine)) {
      const ffmpeg = this.options.ffmpegPath ? { ffmpegPath: this.options.ffmpegPath } : {};
      return this.withSpeakers(
        (options, diarizing) => diarizeFile(audioPath, { ...options, ...ffmpeg }, diarizing),
        () => engine.transcribe(audioPath, onProgress, hints, signal),
        hints,
        signal,
      );
    }
    await onProgress?.({ stage: 'decoding' });
    const recording = await engine.decode(audioPath, signal);
    try {
      return await this.withSpeakers(
        (options, diarizing) => diarizePcmFile(recording.path, options, diarizing),
        () => engine.transcribeDecoded(recording, onProgress, hints, signal),
        hints,
        signal,
      );
    } finally {
      // Both readers are done by now: withSpeakers settles only after the diarization has.
      await recording.remove();
    }
  }

  /** Runs `recognize` and `diarize` side by side and labels the words with the turns. */
  private async withSpeakers(
    diarize: (options: Omit<DiarizeOptions, 'ffmpegPath'>, signal: AbortSignal) => Promise<SpeakerTurn[]>,
    recognize: () => Promise<RecognitionResult>,
    hints: RecognitionHints,
    signal: AbortSignal | undefined,
  ): Promise<RecognitionResult> {
    // Also stops the diarization when recognition fails: nobody would wait for its result.
    const diarization = new AbortController();
    const forward = () => diarization.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    if (signal?.aborted) forward();
    const voiceModel = await this.options.voiceModel?.();
    const turns: Promise<SpeakerTurn[]> = diarize(
      {
        ...(hints.speakersExpected ? { speakersExpected: hints.speakersExpected } : {}),
        ...(voiceModel ? { voiceModel } : {}),
      },
      diarization.signal,
    ).catch((error: unknown) => {
      if (!diarization.signal.aborted) this.options.onDiarizationError?.(error);
      return [];
    });
    try {
      const result = await recognize();
      if (result.words.some((word) => word.speaker !== undefined)) {
        diarization.abort();
        await turns;
        return result;
      }
      const heard = await turns;
      const voices = heard.flatMap(({ start_ms, end_ms, voice }) =>
        voice ? [{ start_ms, end_ms, vector: voice }] : [],
      );
      // No turns: the diarization failed (or heard no speech), and nothing told speakers apart.
      const by =
        heard.length === 0
          ? {}
          : { speakers_by: voiceModel ? `voice-model:${voiceModel.name}` : 'voice-statistics' };
      const labelled = {
        ...result,
        words: assignSpeakers(result.words, heard),
        ...by,
        ...(voices.length > 0 ? { voices } : {}),
      };
      if (signal?.aborted) throw abortError(signal);
      return labelled;
    } catch (error) {
      diarization.abort();
      await turns; // its ffmpeg (if any) and thread are gone before this rejects
      throw signal?.aborted ? abortError(signal) : error;
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }
}
