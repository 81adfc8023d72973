/** Speaker labels are numbered by first appearance in the recording: `Speaker 1`, `Speaker 2`, ... */
export type SpeakerLabel = `Speaker ${number}`;

/** A stretch of speech by one speaker. Turns are sorted, do not overlap, and leave out silences. */
export interface SpeakerTurn {
  start_ms: number;
  end_ms: number;
  speaker: SpeakerLabel;
}

export interface DiarizeOptions {
  /** A hint from the user: exactly this many speakers are made (when there is enough speech). */
  speakersExpected?: number;
  /** Default `ffmpeg` on PATH. */
  ffmpegPath?: string;
}

/** What the main thread tells a diarizer thread when it opens a job. */
export interface DiarizerJob {
  speakersExpected?: number;
}
