import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeDurationMs } from '../../src/adapters/speech/ffmpeg.ts';
import { mp3AudioFrames, silentMp3Frames } from '../../src/adapters/synthesis/mp3-concat.ts';
import { mp3DurationMs, mp3Frames, parseMp3FrameHeader } from '../../src/adapters/synthesis/mp3-duration.ts';
import { FFMPEG_QUIET, run } from '../fixtures/fixture-files.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mp3-duration-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A sine tone encoded by ffmpeg's libmp3lame; `extra` are muxer options (tags, Xing header). */
async function sineMp3(
  name: string,
  sampleRate: number,
  channels: number,
  bitrate: string,
  seconds = 3,
  extra: string[] = [],
): Promise<{ path: string; bytes: Buffer }> {
  const path = join(dir, name);
  await run('ffmpeg', [
    ...FFMPEG_QUIET,
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=${sampleRate}:duration=${seconds}`],
    ...['-ac', String(channels), '-c:a', 'libmp3lame', '-b:a', bitrate, ...extra, '-f', 'mp3', path],
  ]);
  return { path, bytes: await readFile(path) };
}

describe('mp3DurationMs', () => {
  it.each([
    ['MPEG-2 24 kHz mono', 24_000, 1, '48k'],
    ['MPEG-1 44.1 kHz stereo', 44_100, 2, '128k'],
    ['MPEG-2.5 11.025 kHz mono', 11_025, 1, '16k'],
    ['MPEG-1 48 kHz mono', 48_000, 1, '64k'],
  ])('matches ffprobe within 50 ms for a 3 s tone (%s)', async (_label, rate, channels, bitrate) => {
    const { path, bytes } = await sineMp3(`tone-${rate}-${channels}.mp3`, rate, channels, bitrate);
    const probed = await probeDurationMs(path);
    expect(probed).toBeDefined();
    const duration = mp3DurationMs(bytes);
    expect(Math.abs(duration - (probed as number))).toBeLessThanOrEqual(50);
    // Encoder delay and padding: at most about three frames more than the tone.
    const frameMs = ((rate >= 32_000 ? 1152 : 576) * 1000) / rate;
    expect(duration - 3000).toBeGreaterThanOrEqual(0);
    expect(duration - 3000).toBeLessThanOrEqual(3 * frameMs);
  });

  it('skips the ID3v2 tag and does not count the Xing/Info frame as audio', async () => {
    const tagged = await sineMp3('tagged.mp3', 24_000, 1, '48k');
    const bare = await sineMp3('bare.mp3', 24_000, 1, '48k', 3, ['-id3v2_version', '0', '-write_xing', '0']);
    expect(tagged.bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(bare.bytes[0]).toBe(0xff);
    const frames = mp3Frames(tagged.bytes);
    expect(frames[0]?.info).toBe(true);
    expect(frames.slice(1).every((frame) => !frame.info)).toBe(true);
    expect(mp3DurationMs(tagged.bytes)).toBe(mp3DurationMs(bare.bytes));
  });

  it('ignores a trailing ID3v1 tag and a truncated last frame', async () => {
    const { bytes } = await sineMp3('v1.mp3', 44_100, 2, '128k', 3, [
      '-write_id3v1',
      '1',
      '-metadata',
      'title=Tone',
    ]);
    expect(bytes.subarray(bytes.length - 128, bytes.length - 125).toString('latin1')).toBe('TAG');
    const whole = mp3DurationMs(bytes);
    const withoutTag = bytes.subarray(0, bytes.length - 128);
    expect(mp3DurationMs(withoutTag)).toBe(whole);
    const frameMs = 1152 / 44.1;
    const truncated = mp3DurationMs(withoutTag.subarray(0, withoutTag.length - 100));
    expect(Math.abs(truncated - (whole - frameMs))).toBeLessThanOrEqual(1);
  });

  it('finds the frames again after garbage in the middle of the stream', async () => {
    const { bytes } = await sineMp3('resync.mp3', 24_000, 1, '48k', 2, ['-id3v2_version', '0']);
    const frames = mp3Frames(bytes);
    const cut = frames[20]?.offset as number;
    const garbage = Buffer.from([0xff, 0xfb, 0x00, 0x13, 0x37, 0xff, 0x00, 0xaa]);
    const spliced = Buffer.concat([bytes.subarray(0, cut), garbage, bytes.subarray(cut)]);
    expect(mp3Frames(spliced)).toHaveLength(frames.length);
  });

  it('throws on bytes that hold no MPEG audio frame', () => {
    const noise = Buffer.concat(
      Array.from({ length: 64 }, (_, i) => createHash('sha256').update(`noise-${i}`).digest()),
    );
    expect(() => mp3DurationMs(noise)).toThrow(/no MPEG Layer III frames/);
    expect(() => mp3DurationMs(Buffer.alloc(0))).toThrow();
  });
});

describe('parseMp3FrameHeader', () => {
  it('reads version, bitrate, sample rate, channels and frame length', () => {
    // MPEG-1 Layer III, no CRC, 128 kbit/s, 44.1 kHz, padding, joint stereo.
    const header = parseMp3FrameHeader(Buffer.from([0xff, 0xfb, 0x92, 0x64]), 0);
    expect(header).toMatchObject({
      version: '1',
      bitrateKbps: 128,
      sampleRate: 44_100,
      samplesPerFrame: 1152,
      channels: 2,
      padding: true,
      crc: false,
      frameLength: 418,
    });
    // MPEG-2, 48 kbit/s, 24 kHz, mono: 72 * 48000 / 24000 = 144 bytes.
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xf3, 0x64, 0xc4]), 0)).toMatchObject({
      version: '2',
      samplesPerFrame: 576,
      channels: 1,
      frameLength: 144,
    });
  });

  it('rejects free-format, reserved and non-Layer-III headers', () => {
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xfb, 0x02, 0x64]), 0)).toBeNull(); // free format
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xfb, 0xf2, 0x64]), 0)).toBeNull(); // bitrate 15
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xfb, 0x9e, 0x64]), 0)).toBeNull(); // sample rate 3
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xeb, 0x92, 0x64]), 0)).toBeNull(); // reserved version
    expect(parseMp3FrameHeader(Buffer.from([0xff, 0xfd, 0x92, 0x64]), 0)).toBeNull(); // layer II
  });
});

describe('joining MP3 streams', () => {
  it('silent frames plus audio frames decode with ffmpeg to the summed duration', async () => {
    const { bytes } = await sineMp3('join.mp3', 24_000, 1, '48k', 1);
    const audio = mp3AudioFrames(bytes);
    expect(audio).not.toBeNull();
    const { data, first } = audio as NonNullable<typeof audio>;
    const silence = silentMp3Frames(first, 480); // 20 frames of 24 ms
    const joined = Buffer.concat([data, silence, data]);
    const path = join(dir, 'joined.mp3');
    await writeFile(path, joined);
    const probed = await probeDurationMs(path);
    const duration = mp3DurationMs(joined);
    expect(duration).toBe(2 * mp3DurationMs(data) + 480);
    expect(Math.abs(duration - (probed as number))).toBeLessThanOrEqual(50);

    // Decodes without complaint, and the middle of the pause is digital silence.
    const decoded = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 's16le', '-ac', '1', 'pipe:1'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(decoded.status).toBe(0);
    expect(decoded.stderr.toString().trim()).toBe('');
    const pcm = decoded.stdout as Buffer;
    const at = (ms: number) => Math.round((ms * 24_000) / 1000) * 2;
    const pauseMiddle = mp3DurationMs(data) + 240;
    let peak = 0;
    for (let offset = at(pauseMiddle - 150); offset < at(pauseMiddle + 150); offset += 2) {
      peak = Math.max(peak, Math.abs(pcm.readInt16LE(offset)));
    }
    expect(peak).toBe(0);
    let tone = 0;
    for (let offset = at(300); offset < at(400); offset += 2)
      tone = Math.max(tone, Math.abs(pcm.readInt16LE(offset)));
    expect(tone).toBeGreaterThan(1000);
  });
});
