import { createRequire } from 'node:module';

/** A neural voice embedding of a stretch of speech: close vectors, same voice. */
export interface VoiceEmbedder {
  readonly model: string;
  /** 16 kHz mono samples in -1..1; undefined when the stretch is too short for the model. */
  embed(samples: Float32Array): Float32Array | undefined;
}

/** The part of sherpa-onnx-node used here (its speaker-identification.js). */
interface SherpaOnnx {
  SpeakerEmbeddingExtractor: new (config: {
    model: string;
    numThreads?: number;
    debug?: boolean;
    provider?: string;
  }) => SherpaExtractor;
}

interface SherpaExtractor {
  dim: number;
  createStream(): {
    acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
    inputFinished(): void;
  };
  isReady(stream: ReturnType<SherpaExtractor['createStream']>): boolean;
  compute(stream: ReturnType<SherpaExtractor['createStream']>, enableExternalBuffer?: boolean): Float32Array;
}

/** Where sherpa-onnx-node is installed, or why it is not. */
export function sherpaOnnxBinding(): { path: string } | { problem: string } {
  try {
    return { path: createRequire(import.meta.url).resolve('sherpa-onnx-node') };
  } catch {
    return {
      problem: `sherpa-onnx-node, which runs voice models, is not installed for ${process.platform}-${process.arch} (npm install --no-save sherpa-onnx-node@1.13.8)`,
    };
  }
}

/**
 * A voice model (WeSpeaker, 3D-Speaker ONNX) through sherpa-onnx, on one thread. sherpa-onnx ends the
 * process on a model it cannot read rather than throwing, so only models checked to load in a process
 * of their own (voice-provision.ts) reach this.
 */
export function sherpaVoiceEmbedder(model: { path: string; name: string; binding: string }): VoiceEmbedder {
  const sherpa = createRequire(import.meta.url)(model.binding) as SherpaOnnx;
  const extractor = new sherpa.SpeakerEmbeddingExtractor({
    model: model.path,
    numThreads: 1,
    debug: false,
    provider: 'cpu',
  });
  return {
    model: model.name,
    embed(samples) {
      const stream = extractor.createStream();
      stream.acceptWaveform({ samples, sampleRate: 16_000 });
      stream.inputFinished();
      // Without a frame ready, sherpa-onnx returns whatever its buffer held: never asked.
      if (!extractor.isReady(stream)) return undefined;
      return Float32Array.from(extractor.compute(stream, false));
    },
  };
}
