import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuSlots } from '../../src/adapters/speech/cpu-slots.ts';
import { decodeToPcm, PCM_BYTES_PER_MS, probeDurationMs } from '../../src/adapters/speech/ffmpeg.ts';
import { PocketsphinxSpeechToText, parseWordLine } from '../../src/adapters/speech/pocketsphinx.ts';
import { UtteranceLimiter } from '../../src/adapters/speech/utterance-limiter.ts';
import { UnreadableAudioError } from '../../src/domain/errors.ts';
import type { RecognitionProgress, RecognitionResult } from '../../src/ports/speech-to-text.ts';
import { ensureFixtures, type Fixtures, type SpeechFixture } from '../fixtures/generate.ts';
import { wordOverlap } from '../fixtures/word-overlap.ts';
import { videoWithoutSound } from '../support/fixtures.ts';

/**
 * Measured with the default decoder flags: slt wav 0.907, slt mp3 0.895, rms wav 0.955, rms mp3 0.966.
 * The threshold sits just below the worst, so a real regression (wrong flags, lost audio) fails.
 */
const MIN_OVERLAP = 0.85;

/**
 * `source` encoded as WebM/Opus into a pipe, which cannot be seeked back to write a duration: what a
 * browser's MediaRecorder uploads.
 */
function streamedWebm(source: string, out: string): string {
  const run = spawnSync('sh', [
    '-c',
    'ffmpeg -loglevel error -i "$0" -c:a libopus -f webm pipe:1 > "$1"',
    source,
    out,
  ]);
  if (run.status !== 0) throw new Error(`could not encode a streamed WebM: ${run.stderr}`);
  return out;
}
const SLOW = 180_000;

let fixtures: Fixtures;
const engine = new PocketsphinxSpeechToText();
const runs = new Map<string, Promise<{ result: RecognitionResult; progress: RecognitionProgress[] }>>();

/** Each file is recognised once and shared by the tests that look at different aspects of the result. */
function transcribeOnce(path: string) {
  let run = runs.get(path);
  if (!run) {
    const progress: RecognitionProgress[] = [];
    run = engine
      .transcribe(path, (report) => void progress.push(report))
      .then((result) => ({ result, progress }));
    runs.set(path, run);
  }
  return run;
}

function speechFixture(name: string): SpeechFixture {
  const fixture = fixtures.speech.find((candidate) => candidate.name === name);
  if (!fixture) throw new Error(`missing fixture script ${name}.txt`);
  return fixture;
}

const CASES = ['slt-25s', 'rms-25s'].flatMap((name) =>
  (['wav', 'mp3'] as const).map((format) => ({ name, format })),
);

beforeAll(async () => {
  fixtures = await ensureFixtures();
});

describe('PocketsphinxSpeechToText recognises speech offline', () => {
  for (const { name, format } of CASES) {
    it(
      `recognises at least ${MIN_OVERLAP * 100} % of the script words in ${name}.${format}`,
      async () => {
        const fixture = speechFixture(name);
        const { result } = await transcribeOnce(fixture[format]);
        const overlap = wordOverlap(fixture.script, result.words.map((word) => word.text).join(' '));
        expect(overlap).toBeGreaterThanOrEqual(MIN_OVERLAP);
      },
      SLOW,
    );
  }

  it(
    'gives word timings in order and within the duration of the recording',
    async () => {
      for (const { name, format } of CASES) {
        const path = speechFixture(name)[format];
        const { result } = await transcribeOnce(path);
        const probed = (await probeDurationMs(path)) ?? 0;
        expect(Math.abs(result.duration_ms - probed)).toBeLessThan(150);
        let previousStart = 0;
        for (const word of result.words) {
          expect(word.text).toMatch(/^[a-z0-9'.-]+$/); // No fillers, no `(2)` variant suffixes.
          expect(word.start_ms).toBeGreaterThanOrEqual(previousStart);
          expect(word.start_ms).toBeLessThanOrEqual(word.end_ms);
          expect(word.end_ms).toBeLessThanOrEqual(result.duration_ms);
          previousStart = word.start_ms;
        }
      }
    },
    SLOW,
  );

  it(
    'reports decoding first, then recognizing with a fraction that rises to 1',
    async () => {
      const { progress } = await transcribeOnce(speechFixture('slt-25s').wav);
      expect(progress[0]).toEqual({ stage: 'decoding' });
      const recognizing = progress.slice(1);
      expect(recognizing.length).toBeGreaterThanOrEqual(2);
      expect(recognizing.every((report) => report.stage === 'recognizing')).toBe(true);
      const fractions = recognizing.map((report) => report.fraction ?? -1);
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
      expect(fractions.at(-1)).toBe(1);
      // Rate-limited: ~25 s of audio takes a few seconds, so a few dozen reports at most.
      expect(progress.length).toBeLessThan(40);
    },
    SLOW,
  );

  it(
    'returns no words and a no_speech notice (not an error) for silence',
    async () => {
      const { result } = await transcribeOnce(fixtures.silence);
      expect(result.words).toEqual([]);
      expect(result.notice).toBe('no_speech');
      expect(result.duration_ms).toBe(3000);
    },
    SLOW,
  );

  it('rejects a file that is not audio with UnreadableAudioError and a short message', async () => {
    const error = await engine.transcribe(fixtures.notAudio).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnreadableAudioError);
    const message = (error as Error).message;
    expect(message).toMatch(/not a recognisable audio format \(ffmpeg: Invalid data found/);
    expect(message).not.toContain(fixtures.dir);
    expect(message.length).toBeLessThan(200);
  });

  it('fails with a retryable plain Error naming the program when ffmpeg is missing', async () => {
    const missing = new PocketsphinxSpeechToText({ ffmpegPath: '/nonexistent/ffmpeg' });
    const error = await missing.transcribe(speechFixture('slt-25s').wav).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnreadableAudioError);
    expect((error as Error).message).toContain('/nonexistent/ffmpeg');
  });

  it('fails with a retryable plain Error naming the program when pocketsphinx is missing', async () => {
    const missing = new PocketsphinxSpeechToText({
      pocketsphinxPath: '/nonexistent/pocketsphinx_continuous',
    });
    const error = await missing.transcribe(speechFixture('slt-25s').wav).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnreadableAudioError);
    expect((error as Error).message).toContain('/nonexistent/pocketsphinx_continuous');
  });
});

describe('long speech without pauses is cut into bounded utterances', () => {
  /** `ms` of a loud 440 Hz tone, standing in for speech. */
  function tone(ms: number): Buffer {
    const buffer = Buffer.alloc(ms * PCM_BYTES_PER_MS);
    for (let i = 0; i < buffer.length / 2; i++) {
      buffer.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
    }
    return buffer;
  }

  it('inserts a pause at the quietest point of the last third and maps times back to the original', async () => {
    const limiter = new UtteranceLimiter({ maxUtteranceMs: 3000, pauseMs: 700 });
    // Tone, then a 300 ms gap starting at 2500 ms, inside the 2000..3000 ms search window, then tone.
    const input = Buffer.concat([tone(2500), Buffer.alloc(300 * PCM_BYTES_PER_MS), tone(1200)]);
    const chunks: Buffer[] = [];
    limiter.on('data', (chunk: Buffer) => chunks.push(chunk));
    // Odd-sized chunks, as a pipe may deliver them.
    for (let offset = 0; offset < input.length; offset += 4097)
      limiter.write(input.subarray(offset, offset + 4097));
    limiter.end();
    await new Promise((resolve) => limiter.on('end', resolve));
    const output = Buffer.concat(chunks);
    expect(limiter.inputBytes).toBe(input.length);
    expect(output.length).toBe(input.length + 700 * PCM_BYTES_PER_MS);
    // The cut lands 100 ms into the gap (the middle of its first silent 200 ms): audio before it is unchanged.
    expect(
      output.subarray(0, 2600 * PCM_BYTES_PER_MS).equals(input.subarray(0, 2600 * PCM_BYTES_PER_MS)),
    ).toBe(true);
    const pause = output.subarray(2600 * PCM_BYTES_PER_MS, 3300 * PCM_BYTES_PER_MS);
    let loudest = 0;
    for (let offset = 0; offset < pause.length; offset += 2) {
      loudest = Math.max(loudest, Math.abs(pause.readInt16LE(offset)));
    }
    expect(loudest).toBeLessThanOrEqual(2); // Near-silence, inserted right at the cut.
    expect(limiter.toOriginalMs(1000)).toBe(1000);
    expect(limiter.toOriginalMs(2600 + 700 + 500)).toBe(3100);
    expect(limiter.toOriginalMs(2600 + 300)).toBe(2600); // Inside the inserted pause.
  });

  it(
    'keeps word timings on the original clock when it inserts pauses into real speech',
    async () => {
      const path = speechFixture('rms-25s').wav;
      const { result: reference } = await transcribeOnce(path);
      const cut = await new PocketsphinxSpeechToText({ maxUtteranceMs: 9000 }).transcribe(path);
      // Three inserted pauses of 0.7 s would shift the last word by 2.1 s if times were not mapped back.
      const lastEnd = (result: RecognitionResult) => result.words.at(-1)?.end_ms ?? 0;
      expect(Math.abs(lastEnd(cut) - lastEnd(reference))).toBeLessThan(300);
      expect(lastEnd(cut)).toBeLessThanOrEqual(cut.duration_ms);
      const script = speechFixture('rms-25s').script;
      expect(wordOverlap(script, cut.words.map((word) => word.text).join(' '))).toBeGreaterThanOrEqual(
        MIN_OVERLAP,
      );
    },
    SLOW,
  );
});

describe('pocketsphinx word-timing lines are parsed into words', () => {
  it('keeps words with their posterior as confidence, strips pronunciation variants and drops fillers and hypothesis lines', () => {
    expect(parseWordLine('morning 0.280 0.690 0.996406')).toEqual({
      text: 'morning',
      start_ms: 280,
      end_ms: 690,
      confidence: 0.996406,
    });
    expect(parseWordLine('project(2) 4.130 4.600 0.645939')).toEqual({
      text: 'project',
      start_ms: 4130,
      end_ms: 4600,
      confidence: 0.645939,
    });
    // Printed as 1.000001 by float rounding: still a probability.
    expect(parseWordLine('yes 0.10 0.40 1.000001')?.confidence).toBe(1);
    for (const filler of ['<s> 0.000 0.140 0.999400', '</s> 12.19 12.51 1.0', '<sil> 2.17 2.42 0.97']) {
      expect(parseWordLine(filler)).toBeUndefined();
    }
    expect(parseWordLine('[NOISE] 1.00 1.20 0.5')).toBeUndefined();
    expect(parseWordLine('the morning meeting started at nine')).toBeUndefined();
    expect(parseWordLine('')).toBeUndefined();
  });
});

describe('ffmpeg decodes common upload formats to 16 kHz mono PCM', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'speech-formats-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Encodes the slt WAV into another format with the system ffmpeg. */
  function encode(file: string, args: string[]): string {
    const out = join(dir, file);
    const source = speechFixture('slt-25s').wav;
    const run = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', source, ...args, out]);
    if (run.status !== 0) throw new Error(`could not encode ${file}: ${run.stderr}`);
    return out;
  }

  async function decodedMs(path: string): Promise<number> {
    const decoding = decodeToPcm(path);
    let bytes = 0;
    for await (const chunk of decoding.pcm) bytes += (chunk as Buffer).length;
    await decoding.done;
    return bytes / PCM_BYTES_PER_MS;
  }

  const formats: [string, string[]][] = [
    ['speech.m4a', ['-c:a', 'aac']],
    ['speech.ogg', ['-c:a', 'libvorbis']],
    ['speech.opus', ['-c:a', 'libopus']],
    ['speech.webm', ['-c:a', 'libopus', '-f', 'webm']],
    ['speech.flac', ['-c:a', 'flac']],
  ];
  for (const [file, args] of formats) {
    it(`decodes ${file} to PCM as long as the original recording`, async () => {
      expect(await decodedMs(encode(file, args))).toBeCloseTo(25_875, -2);
    });
  }

  it('reports the duration as unknown, not wrong, when a streamed WebM does not carry one', async () => {
    const out = streamedWebm(speechFixture('slt-25s').wav, join(dir, 'streamed.webm'));
    expect(await probeDurationMs(out)).toBeUndefined();
    expect(await decodedMs(out)).toBeCloseTo(25_875, -2);
  });

  it('falls back to `ffmpeg -i` for the duration when ffprobe is not installed', async () => {
    const noProbe = { ffprobePath: '/nonexistent/ffprobe' };
    // `ffmpeg -i` prints centiseconds: 28.785 s shows as 00:00:28.79.
    const probed = (await probeDurationMs(speechFixture('rms-25s').wav, noProbe)) ?? 0;
    expect(Math.abs(probed - 28_785)).toBeLessThanOrEqual(10);
    await expect(probeDurationMs(fixtures.notAudio, noProbe)).rejects.toThrow(UnreadableAudioError);
  });

  it('rejects a video without an audio stream with UnreadableAudioError', async () => {
    const out = await videoWithoutSound(join(dir, 'video-only.mp4'));
    await expect(probeDurationMs(out)).rejects.toThrow(/^This file has no sound track/);
    await expect(decodedMs(out)).rejects.toThrow(UnreadableAudioError);
  });

  it('decodes the first sound track of a video that has several, not a mix of them', async () => {
    const out = join(dir, 'two-tracks.mkv');
    // Track 1: 2 s of silence; track 2: the 25 s speech fixture. Only the first may be decoded.
    const run = spawnSync('ffmpeg', [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=5:d=2',
      '-f',
      'lavfi',
      '-i',
      'anullsrc=r=16000:cl=mono:d=2',
      '-i',
      speechFixture('slt-25s').wav,
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-map',
      '2:a',
      '-c:v',
      'libx264',
      '-c:a',
      'libopus',
      out,
    ]);
    expect(run.status, run.stderr.toString()).toBe(0);
    expect(await decodedMs(out)).toBeCloseTo(2_000, -2);
  });
});

describe('long recordings are recognised in parallel chunks', () => {
  let dir: string;
  let path: string;
  let script: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'speech-chunks-'));
    path = join(dir, 'concatenated.wav');
    // slt + rms + slt: ~80 s, with boundaries of 20 s chunks landing in the middle of sentences.
    const parts = [speechFixture('slt-25s'), speechFixture('rms-25s'), speechFixture('slt-25s')];
    script = parts.map((part) => part.script).join(' ');
    const inputs = parts.flatMap((part) => ['-i', part.wav]);
    const run = spawnSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', ...inputs],
      ...['-filter_complex', 'concat=n=3:v=0:a=1', '-ac', '1', '-ar', '16000', path],
    ]);
    if (run.status !== 0) throw new Error(`could not concatenate fixtures: ${run.stderr}`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'matches the unchunked result: same accuracy, ordered words, no word doubled at a boundary',
    async () => {
      const whole = await engine.transcribe(path);
      const progress: RecognitionProgress[] = [];
      const chunked = await new PocketsphinxSpeechToText({ chunkMs: 20_000, concurrency: 2 }).transcribe(
        path,
        (report) => void progress.push(report),
      );
      const text = (result: RecognitionResult) => result.words.map((word) => word.text).join(' ');
      const wholeOverlap = wordOverlap(script, text(whole));
      const chunkedOverlap = wordOverlap(script, text(chunked));
      expect(chunkedOverlap).toBeGreaterThanOrEqual(wholeOverlap - 0.03);
      expect(chunkedOverlap).toBeGreaterThanOrEqual(MIN_OVERLAP);
      // A boundary word kept by both chunks would add words; one kept by neither would drop them.
      // The chunks' decoders also segment the ~2 s around each of the 3 boundaries differently.
      expect(Math.abs(chunked.words.length - whole.words.length)).toBeLessThanOrEqual(
        Math.max(4, whole.words.length * 0.03),
      );
      expect(Math.abs(chunked.duration_ms - whole.duration_ms)).toBeLessThan(50);
      let previous: RecognitionResult['words'][number] | undefined;
      for (const word of chunked.words) {
        expect(word.start_ms).toBeLessThanOrEqual(word.end_ms);
        expect(word.end_ms).toBeLessThanOrEqual(chunked.duration_ms);
        if (previous) {
          expect(word.start_ms).toBeGreaterThanOrEqual(previous.start_ms);
          // A doubled word shows as the same word again over the same stretch of audio.
          const sameAudio = word.start_ms < previous.end_ms - 100;
          expect(sameAudio && word.text === previous.text).toBe(false);
        }
        previous = word;
      }
      const fractions = progress.slice(1).map((report) => report.fraction ?? -1);
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
      expect(fractions.at(-1)).toBe(1);
      console.info(
        `chunked: ${chunked.words.length} words, overlap ${chunkedOverlap.toFixed(3)}; ` +
          `whole: ${whole.words.length} words, overlap ${wholeOverlap.toFixed(3)}`,
      );
    },
    SLOW,
  );
  it(
    'cuts a streamed WebM, which states no duration, into chunks too, by its decoded length, and removes the decoded file after',
    async () => {
      const streamed = streamedWebm(path, join(dir, 'streamed.webm'));
      expect(await probeDurationMs(streamed)).toBeUndefined();
      const scratchDir = await mkdtemp(join(dir, 'scratch-'));
      const slots = new CpuSlots(2);
      let mostAtOnce = 0;
      const progress: RecognitionProgress[] = [];
      const result = await new PocketsphinxSpeechToText({
        chunkMs: 20_000,
        concurrency: 2,
        slots,
        scratchDir,
      }).transcribe(streamed, (report) => {
        mostAtOnce = Math.max(mostAtOnce, slots.inUse);
        progress.push(report);
      });
      expect(mostAtOnce).toBe(2);
      // Only a known duration gives fractions between 0 and 1.
      expect(progress.some((report) => (report.fraction ?? 0) > 0 && (report.fraction ?? 1) < 1)).toBe(true);
      expect(wordOverlap(script, result.words.map((word) => word.text).join(' '))).toBeGreaterThanOrEqual(
        MIN_OVERLAP,
      );
      expect(await readdir(scratchDir)).toEqual([]);
    },
    SLOW,
  );
});
