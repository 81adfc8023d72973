/**
 * MPEG audio Layer III frame walking, for the duration of an MP3 without a decoder (Lambda has no
 * ffmpeg) and for joining MP3 streams frame by frame. Supports MPEG-1, MPEG-2 and MPEG-2.5; skips ID3v2
 * tags, trailing ID3v1/APE tags and garbage between frames, and recognises a Xing/Info/VBRI header frame
 * (which carries no audio).
 */

export type MpegVersion = '1' | '2' | '2.5';

export interface Mp3FrameHeader {
  version: MpegVersion;
  bitrateKbps: number;
  sampleRate: number;
  /** 1152 (MPEG-1) or 576 (MPEG-2/2.5). */
  samplesPerFrame: number;
  /** 3 = single channel (mono). */
  channelMode: number;
  channels: 1 | 2;
  padding: boolean;
  /** A 16-bit CRC follows the 4-byte header. */
  crc: boolean;
  /** Whole frame in bytes, header included. */
  frameLength: number;
}

export interface Mp3Frame {
  offset: number;
  header: Mp3FrameHeader;
  /** A Xing/Info/VBRI header frame: decodes to nothing, so it is not audio. */
  info: boolean;
}

/** Layer III bitrates (kbit/s) by header index; index 0 is free format. */
export const LAYER3_BITRATES: Record<MpegVersion, readonly number[]> = {
  '1': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2.5': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
/** Sample rates (Hz) by header index. */
export const SAMPLE_RATES: Record<MpegVersion, readonly number[]> = {
  '1': [44100, 48000, 32000],
  '2': [22050, 24000, 16000],
  '2.5': [11025, 12000, 8000],
};

/** Parses the 4-byte Layer III frame header at `offset`; null when there is none (or it is unusable). */
export function parseMp3FrameHeader(bytes: Uint8Array, offset: number): Mp3FrameHeader | null {
  if (offset < 0 || offset + 4 > bytes.length) return null;
  const b1 = bytes[offset + 1] as number;
  const b2 = bytes[offset + 2] as number;
  const b3 = bytes[offset + 3] as number;
  if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const versionBits = (b1 >> 3) & 3;
  if (versionBits === 1) return null; // reserved
  if (((b1 >> 1) & 3) !== 1) return null; // Layer III only
  const version: MpegVersion = versionBits === 3 ? '1' : versionBits === 2 ? '2' : '2.5';
  const bitrateIndex = b2 >> 4;
  const sampleRateIndex = (b2 >> 2) & 3;
  // Index 0 is "free format" (frame length unknown), 15 and sample-rate index 3 are invalid.
  if (bitrateIndex === 0 || bitrateIndex === 15 || sampleRateIndex === 3) return null;
  const bitrateKbps = LAYER3_BITRATES[version][bitrateIndex] as number;
  const sampleRate = SAMPLE_RATES[version][sampleRateIndex] as number;
  const samplesPerFrame = version === '1' ? 1152 : 576;
  const padding = ((b2 >> 1) & 1) === 1;
  const channelMode = b3 >> 6;
  const frameLength = layer3FrameLength(samplesPerFrame, bitrateKbps, sampleRate, padding);
  return {
    version,
    bitrateKbps,
    sampleRate,
    samplesPerFrame,
    channelMode,
    channels: channelMode === 3 ? 1 : 2,
    padding,
    crc: (b1 & 1) === 0,
    frameLength,
  };
}

/** Bytes in a Layer III frame, header included. */
export function layer3FrameLength(
  samplesPerFrame: number,
  bitrateKbps: number,
  sampleRate: number,
  padding: boolean,
): number {
  return Math.floor(((samplesPerFrame / 8) * bitrateKbps * 1000) / sampleRate) + (padding ? 1 : 0);
}

/** Bytes of Layer III side information after the header (and CRC). */
export function sideInfoLength(header: Mp3FrameHeader): number {
  if (header.version === '1') return header.channels === 1 ? 17 : 32;
  return header.channels === 1 ? 9 : 17;
}

/** Length of the ID3v2 tag at `offset` (header, body, footer), or 0. */
export function id3v2Length(bytes: Uint8Array, offset: number): number {
  if (offset + 10 > bytes.length) return 0;
  if (bytes[offset] !== 0x49 || bytes[offset + 1] !== 0x44 || bytes[offset + 2] !== 0x33) return 0; // "ID3"
  let size = 0;
  for (let i = 6; i < 10; i++) {
    const byte = bytes[offset + i] as number;
    if (byte & 0x80) return 0; // not a syncsafe integer: not a tag
    size = (size << 7) | byte;
  }
  const footer = ((bytes[offset + 5] as number) & 0x10) !== 0;
  return 10 + size + (footer ? 10 : 0);
}

/**
 * The MPEG Layer III frames of `bytes`, in order. The stream's version, sample rate and channel count
 * are taken from the first frame whose successor confirms it; later frames must match them. A truncated
 * last frame is left out.
 */
export function mp3Frames(bytes: Uint8Array): Mp3Frame[] {
  let offset = 0;
  for (let tag = id3v2Length(bytes, offset); tag > 0; tag = id3v2Length(bytes, offset)) offset += tag;
  const frames: Mp3Frame[] = [];
  let locked: Mp3FrameHeader | undefined;
  while (offset + 4 <= bytes.length) {
    const header = parseMp3FrameHeader(bytes, offset);
    const fits = header !== null && offset + header.frameLength <= bytes.length;
    if (header && fits && (locked ? sameStream(header, locked) : confirmed(bytes, offset, header))) {
      locked ??= header;
      frames.push({ offset, header, info: frames.length === 0 && isInfoFrame(bytes, offset, header) });
      offset += header.frameLength;
    } else if (header && !fits && locked && sameStream(header, locked)) {
      break; // truncated last frame
    } else {
      offset += 1; // garbage, a tag or a false sync: look for the next frame
    }
  }
  return frames;
}

/** Duration in ms of the audio frames of an MP3 (a Xing/Info frame is not counted). Throws without frames. */
export function mp3DurationMs(bytes: Uint8Array): number {
  const frames = mp3Frames(bytes);
  const audio = frames.filter((frame) => !frame.info);
  if (frames.length === 0) throw new Error('Not an MP3 stream: no MPEG Layer III frames found');
  const ms = audio.reduce((sum, { header }) => sum + (header.samplesPerFrame * 1000) / header.sampleRate, 0);
  return Math.round(ms);
}

function sameStream(a: Mp3FrameHeader, b: Mp3FrameHeader): boolean {
  return a.version === b.version && a.sampleRate === b.sampleRate && a.channels === b.channels;
}

/** A first frame counts when the next frame (or the end of the data, or a trailing tag) follows it. */
function confirmed(bytes: Uint8Array, offset: number, header: Mp3FrameHeader): boolean {
  const next = offset + header.frameLength;
  if (next === bytes.length || isTrailingTag(bytes, next)) return true;
  const following = parseMp3FrameHeader(bytes, next);
  return following !== null && sameStream(following, header);
}

function isTrailingTag(bytes: Uint8Array, offset: number): boolean {
  const ascii = (length: number) => Buffer.from(bytes.subarray(offset, offset + length)).toString('latin1');
  return ascii(3) === 'TAG' || ascii(8) === 'APETAGEX';
}

function isInfoFrame(bytes: Uint8Array, offset: number, header: Mp3FrameHeader): boolean {
  const ascii = (at: number) => Buffer.from(bytes.subarray(at, at + 4)).toString('latin1');
  const xingAt = offset + 4 + (header.crc ? 2 : 0) + sideInfoLength(header);
  const tag = ascii(xingAt);
  return tag === 'Xing' || tag === 'Info' || ascii(offset + 36) === 'VBRI';
}
