import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeDurationMs } from '../../src/adapters/speech/ffmpeg.ts';
import { FliteSpeechSynthesizer } from '../../src/adapters/synthesis/flite-synthesizer.ts';
import { GenerationFailedError } from '../../src/ports/generation-errors.ts';

let dir: string;
let scratch: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flite-synth-out-'));
  scratch = await mkdtemp(join(tmpdir(), 'flite-synth-tmp-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

const script = [
  { voice: 'slt', text: 'Welcome back to the show. Today we talk about the launch plan.' },
  { voice: 'rms', text: '-o Thanks. The plan has three phases, and the first starts on Monday.' },
  { voice: 'slt', text: 'Great, let us start with phase one.' },
];

describe('FliteSpeechSynthesizer (real flite and ffmpeg)', () => {
  it('renders three lines in two voices as one MP3 as long as it reports', async () => {
    const synthesizer = new FliteSpeechSynthesizer({ tmpDir: scratch });
    const [host, guest] = synthesizer.hostVoices('en-US') as [string, string];
    expect([host, guest]).toEqual(['slt', 'rms']);
    const output = join(dir, 'episode.mp3');
    const { duration_ms } = await synthesizer.synthesize(script, output);

    expect((await stat(output)).size).toBeGreaterThan(1000);
    const probe = spawnSync('ffprobe', [
      ...['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,channels', '-of', 'csv=p=0', output],
    ]);
    expect(probe.stdout.toString().trim()).toBe('mp3,22050,1');
    const probed = (await probeDurationMs(output)) as number;
    expect(duration_ms).toBeGreaterThan(1000);
    expect(Math.abs(probed - duration_ms)).toBeLessThanOrEqual(duration_ms * 0.1);
    // Temporary WAVs and the partial output are gone.
    expect(await readdir(scratch)).toEqual([]);
    expect(await readdir(dir)).toEqual(['episode.mp3']);
  });

  it('adds the pauses between lines to the duration', async () => {
    const short = script.slice(0, 2);
    const withoutPause = new FliteSpeechSynthesizer({ tmpDir: scratch, pauseMs: 0 });
    const withPause = new FliteSpeechSynthesizer({ tmpDir: scratch, pauseMs: 1000 });
    const a = await withoutPause.synthesize(short, join(dir, 'no-pause.mp3'));
    const b = await withPause.synthesize(short, join(dir, 'pause.mp3'));
    expect(Math.abs(b.duration_ms - a.duration_ms - 1000)).toBeLessThanOrEqual(2);
  });

  it('offers host voices for English only', () => {
    const synthesizer = new FliteSpeechSynthesizer();
    expect(synthesizer.hostVoices('en')).toEqual(['slt', 'rms']);
    expect(synthesizer.hostVoices('en-GB')).toEqual(['slt', 'rms']);
    expect(synthesizer.hostVoices('de')).toBeNull();
    expect(synthesizer.hostVoices('fr-CA')).toBeNull();
  });

  it('reports a missing flite binary as GenerationFailedError', async () => {
    const synthesizer = new FliteSpeechSynthesizer({
      fliteBin: join(scratch, 'no-such-flite'),
      tmpDir: scratch,
    });
    const failure = synthesizer.synthesize(script, join(dir, 'missing.mp3'));
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/Cannot run .*no-such-flite/);
  });

  it('reports a missing ffmpeg binary as GenerationFailedError and leaves no files', async () => {
    const synthesizer = new FliteSpeechSynthesizer({
      ffmpegBin: join(scratch, 'no-such-ffmpeg'),
      tmpDir: scratch,
    });
    const failure = synthesizer.synthesize(script, join(dir, 'no-ffmpeg.mp3'));
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/Cannot run .*no-such-ffmpeg/);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('refuses a voice flite does not have instead of silently using another, without quoting the text', async () => {
    const synthesizer = new FliteSpeechSynthesizer({ tmpDir: scratch });
    const failure = synthesizer.synthesize(
      [{ voice: 'nosuchvoice', text: 'Secret plans.' }],
      join(dir, 'x.mp3'),
    );
    await expect(failure).rejects.toThrow(/flite has no voice nosuchvoice/);
    await failure.catch((error: Error) => expect(error.message).not.toContain('Secret'));
  });

  it('reports an ffmpeg failure (unwritable output) as GenerationFailedError', async () => {
    const synthesizer = new FliteSpeechSynthesizer({ tmpDir: scratch });
    const failure = synthesizer.synthesize(script.slice(0, 1), join(dir, 'no-such-dir', 'out.mp3'));
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/ffmpeg exited with code/);
    expect(await readdir(scratch)).toEqual([]);
  });
});
