/** One recognised word with its position in the recording. */
export interface RecognizedWord {
  text: string;
  start_ms: number;
  end_ms: number;
  /** Label of the speaker, when the engine diarises; engines that do not leave it out. */
  speaker?: string;
  /** 0..1: how sure the engine is of this word (pocketsphinx posterior, Transcribe confidence). */
  confidence?: number;
  /**
   * 0..1: the engine's confidence in the stretch this word came in, when it scores stretches rather
   * than words (whisper's segment `avg_logprob`). Weighs in segment confidences; never shown per word.
   */
  span_confidence?: number;
}

export interface RecognitionProgress {
  /** Short machine-readable stage name, shown as the job `stage` (e.g. `decoding`, `recognizing`). */
  stage: string;
  /** 0..1 when the engine knows how far it is. */
  fraction?: number;
  /** Stage `waiting`: the recording is ready and waits for a recogniser other recordings hold. */
  waiting?: RecognitionWait;
}

/** Why a recording waits for a recogniser, and until about when. */
export interface RecognitionWait {
  /** Other recordings being recognised now or served before this one. */
  recordingsAhead: number;
  /** Epoch ms: when its recognition should start, once the speed of recent chunks is known. */
  startsAt?: number;
}

/** What the submitter told us about the recording. */
export interface RecognitionHints {
  /** Number of speakers, when known (diarization otherwise decides). */
  speakersExpected?: number;
}

/**
 * What the engine found about the recording as a whole: `no_speech` (music, tones, noise, silence:
 * `words` is then empty) or `low_confidence` (speech it could not follow, e.g. another language).
 */
export type RecognitionNotice = 'no_speech' | 'low_confidence';

export interface RecognitionResult {
  words: RecognizedWord[];
  duration_ms: number;
  /** Absent when the engine has nothing to say; a recording without words reads as `no_speech`. */
  notice?: RecognitionNotice;
  /** The language the engine heard, when it detects one (a multilingual Whisper); else the configured one. */
  language?: string;
  /** The engine that made it, when the configured one chooses per recording (the local default). */
  engine?: string;
  /**
   * Set when a fallback engine made it: why the preferred one could not, and how to get it. Shown as
   * the transcript's `engine_fallback` notice (unless no speech was heard at all).
   */
  fallback?: string;
  /**
   * What told the speakers apart, when the local diarizer did: `voice-model:<name>` (a neural voice
   * embedding) or `voice-statistics` (MFCC and pitch statistics). Absent when the engine labels them.
   */
  speakers_by?: string;
  /**
   * The voice of each speaker turn the local diarizer found (a unit vector); kept beside the
   * transcript so that a correction can find the segments spoken in a similar voice.
   */
  voices?: SpeakerVoice[];
}

/**
 * Speech-to-text engine. Implementations: local (ffmpeg + pocketsphinx), later Amazon Transcribe and
 * OpenAI-compatible servers.
 */
export interface SpeechToText {
  /**
   * Transcribes the audio file at `audioPath`.
   * Throws `UnreadableAudioError` (src/domain/errors.ts) when the file is not decodable audio: that is
   * permanent and the job fails without retry. Any other error is treated as transient and retried.
   * Aborting `signal` stops the work promptly (child processes killed, threads ended, temporary files
   * removed) and rejects with an error named `AbortError`.
   */
  transcribe(
    audioPath: string,
    onProgress?: (progress: RecognitionProgress) => Promise<void> | void,
    hints?: RecognitionHints,
    signal?: AbortSignal,
  ): Promise<RecognitionResult>;
}

/**
 * Recognition that runs as a job elsewhere and reports its end by an event (Amazon Transcribe): the
 * worker starts it and returns; the completion handler reads the result.
 */
export interface BatchSpeechToText {
  /** Starts recognising the stored recording; starting the same job again is harmless. */
  start(job: BatchRecognitionJob): Promise<void>;
  /** Reads the result of a job that reported success. */
  result(job: BatchRecognitionJob): Promise<RecognitionResult>;
  /** Removes what the job left behind (its raw output). */
  cleanUp(job: BatchRecognitionJob): Promise<void>;
  /**
   * Asks the provider where the job is, for when its completion event may have been missed (the
   * reconciler, src/domain/job-reconciliation.ts). `unknown`: the provider has no such job.
   */
  status(job: BatchRecognitionJob): Promise<BatchJobStatus>;
}

export type BatchJobStatus =
  | { state: 'running' }
  | { state: 'unknown' }
  | { state: 'ended'; succeeded: boolean; failureReason?: string; permanent: boolean; transient?: boolean };

export interface BatchRecognitionJob {
  accountId: string;
  noteId: string;
  /**
   * The run of the job it belongs to (runNumber: creation time and attempt), so an event of an
   * earlier attempt, or of a job deleted and made again, is ignored.
   */
  attempt: number;
  hints?: RecognitionHints;
}

export function isBatchEngine(engine: SpeechToText | BatchSpeechToText): engine is BatchSpeechToText {
  return 'start' in engine;
}

/** A stretch of one speaker's voice: its time and a unit vector to compare voices by (cosine). */
export interface SpeakerVoice {
  start_ms: number;
  end_ms: number;
  vector: number[];
}
