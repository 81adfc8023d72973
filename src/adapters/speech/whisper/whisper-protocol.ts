/**
 * What the service and its whisper.cpp process (whisper-process.ts) say to each other: one job as JSON
 * on the process's standard input, then JSON lines on its standard output (progress, then the result).
 */
export interface WhisperJob {
  /** The binding's native module (`index.node` of `@fugood/node-whisper-<platform>-<arch>`). */
  binding: string;
  /** koffi's entry file, through which whisper-c-api.ts calls whisper.cpp's C API in that module. */
  koffi: string;
  model: string;
  /** The recording decoded to 16 kHz mono s16le PCM, and the byte range of it to hear. */
  pcm: string;
  start: number;
  /** Inclusive, as `createReadStream` takes it; omitted: to the end. */
  end?: number;
  /** `en`, `it`, ..., or `auto` to let a multilingual model detect it. */
  language: string;
  threads: number;
}

/** One token whisper.cpp heard: a word or part of one (a leading space starts a word). */
export interface WhisperPiece {
  text: string;
  /** Milliseconds from the start of the range heard. */
  t0: number;
  t1: number;
  /** The token's probability (0..1): a word's confidence is the mean over its tokens. */
  probability: number;
}

export interface WhisperHeard {
  language?: string;
  pieces: WhisperPiece[];
  /** 16 kHz samples handed to whisper.cpp: the service checks that the whole range reached it. */
  samples: number;
}

export type WhisperMessage = { progress: number } | { result: WhisperHeard } | { error: string };
