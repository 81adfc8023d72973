/** Speaker labels are numbered by first appearance in the recording: `Speaker 1`, `Speaker 2`, ... */
export type SpeakerLabel = `Speaker ${number}`;

/** A stretch of speech by one speaker. Turns are sorted, do not overlap, and leave out silences. */
export interface SpeakerTurn {
  start_ms: number;
  end_ms: number;
  speaker: SpeakerLabel;
  /** The voice heard in the turn: a unit vector (a voice model's embedding, or voice statistics). */
  voice?: number[];
}

/** A neural voice model checked to load (voice-provision.ts): its file, its name, what runs it. */
export interface VoiceModel {
  path: string;
  name: string;
  /** sherpa-onnx-node's entry file, resolved where node_modules is (a thread's bundle has none beside it). */
  binding: string;
}

export interface DiarizeOptions {
  /** A hint from the user: exactly this many speakers are made (when there is enough speech). */
  speakersExpected?: number;
  /** Speakers are told apart by this model's embeddings; without one, by MFCC and pitch statistics. */
  voiceModel?: VoiceModel;
  /** Default `ffmpeg` on PATH. */
  ffmpegPath?: string;
}

/** What the main thread tells a diarizer thread when it opens a job. */
export interface DiarizerJob {
  speakersExpected?: number;
  voiceModel?: VoiceModel;
}
