import {
  LAYER3_BITRATES,
  layer3FrameLength,
  type Mp3FrameHeader,
  mp3Frames,
  SAMPLE_RATES,
} from './mp3-duration.ts';

/**
 * Joining MP3 streams without re-encoding: each stream is reduced to its audio frames (no ID3 tags, no
 * Xing/Info frame, whose frame count would be wrong for the joined file) and pauses are frames of
 * digital silence. Streams joined this way must share MPEG version, sample rate and channel count, and
 * each must start without bit-reservoir data (true of any stream an encoder wrote from its start).
 */
export interface Mp3AudioFrames {
  /** The audio frames, back to back. */
  data: Buffer;
  /** Header of the first audio frame: the template for silence joined to this stream. */
  first: Mp3FrameHeader;
  frameCount: number;
}

/** The audio frames of one MP3 stream, or null when it holds none. */
export function mp3AudioFrames(bytes: Uint8Array): Mp3AudioFrames | null {
  const audio = mp3Frames(bytes).filter((frame) => !frame.info);
  const first = audio[0];
  if (!first) return null;
  const data = Buffer.concat(
    audio.map(({ offset, header }) => bytes.subarray(offset, offset + header.frameLength)),
  );
  return { data, first: first.header, frameCount: audio.length };
}

const VERSION_BITS = { '1': 3, '2': 2, '2.5': 0 } as const;

/**
 * About `ms` of silence as Layer III frames like `template` (same version, sample rate, bitrate and
 * channel mode; no CRC, no padding). All-zero side information means no coded spectral values, which
 * every decoder renders as silence; `main_data_begin` 0 keeps the frames independent of their neighbours.
 */
export function silentMp3Frames(template: Mp3FrameHeader, ms: number): Buffer {
  const count = Math.max(0, Math.round((ms * template.sampleRate) / 1000 / template.samplesPerFrame));
  if (count === 0) return Buffer.alloc(0);
  const bitrateIndex = LAYER3_BITRATES[template.version].indexOf(template.bitrateKbps);
  const sampleRateIndex = SAMPLE_RATES[template.version].indexOf(template.sampleRate);
  if (bitrateIndex <= 0 || sampleRateIndex < 0) throw new Error('Unusable MP3 frame header template');
  const { samplesPerFrame, bitrateKbps, sampleRate } = template;
  const length = layer3FrameLength(samplesPerFrame, bitrateKbps, sampleRate, false);
  const frame = Buffer.alloc(length);
  frame[0] = 0xff;
  // Sync, version, layer III (01), protection bit 1 (no CRC).
  frame[1] = 0xe0 | (VERSION_BITS[template.version] << 3) | (1 << 1) | 1;
  frame[2] = (bitrateIndex << 4) | (sampleRateIndex << 2);
  frame[3] = template.channelMode << 6;
  return Buffer.concat(Array.from({ length: count }, () => frame));
}
