import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttp2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PollyClient,
  ServiceFailureException,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandInput,
  type SynthesizeSpeechCommandOutput,
  TextLengthExceededException,
} from '@aws-sdk/client-polly';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeDurationMs } from '../../src/adapters/speech/ffmpeg.ts';
import { mp3DurationMs } from '../../src/adapters/synthesis/mp3-duration.ts';
import {
  POLLY_MAX_CHARS,
  PollySpeechSynthesizer,
  type PollySynthesizeClient,
  splitForPolly,
} from '../../src/adapters/synthesis/polly-synthesizer.ts';
import { pollyHostVoices, pollyLanguages } from '../../src/adapters/synthesis/polly-voices.ts';
import { GenerationFailedError, ProviderThrottledError } from '../../src/ports/generation-errors.ts';
import { FFMPEG_QUIET, run } from '../fixtures/fixture-files.ts';
import { waitUntil } from '../support/wait.ts';

let dir: string;
/** What Polly would answer per voice: real MP3 bytes (ffmpeg, 24 kHz mono, with ID3 tag and Info frame). */
const voiceAudio = new Map<string, Buffer>();

async function toneMp3(name: string, frequency: number, seconds: number): Promise<Buffer> {
  const path = join(dir, `${name}.mp3`);
  await run('ffmpeg', [
    ...FFMPEG_QUIET,
    ...['-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=24000:duration=${seconds}`],
    ...['-ac', '1', '-c:a', 'libmp3lame', '-b:a', '48k', '-f', 'mp3', path],
  ]);
  return readFile(path);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'polly-synth-'));
  voiceAudio.set('Joanna', await toneMp3('joanna', 440, 1.2));
  voiceAudio.set('Matthew', await toneMp3('matthew', 220, 0.8));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const throttled = () =>
  Object.assign(new Error('Rate exceeded'), {
    name: 'ThrottlingException',
    $metadata: { httpStatusCode: 400 },
  });

/** Answers with the voice's MP3, or throws the next scripted error first; keeps the inputs. */
class FakePollyClient implements PollySynthesizeClient {
  readonly inputs: SynthesizeSpeechCommandInput[] = [];
  constructor(private readonly errors: Error[] = []) {}
  async send(command: SynthesizeSpeechCommand): Promise<SynthesizeSpeechCommandOutput> {
    expect(command).toBeInstanceOf(SynthesizeSpeechCommand);
    this.inputs.push({ ...command.input });
    const error = this.errors.shift();
    if (error) throw error;
    const audio = voiceAudio.get(String(command.input.VoiceId));
    if (!audio) throw new Error(`no audio for ${command.input.VoiceId}`);
    const stream = { transformToByteArray: async () => new Uint8Array(audio) };
    return { AudioStream: stream, $metadata: {} } as unknown as SynthesizeSpeechCommandOutput;
  }
}

const lines = [
  { voice: 'Joanna', text: 'Welcome to the show.' },
  { voice: 'Matthew', text: 'Today we look at the launch plan.' },
  { voice: 'Joanna', text: 'Let us start with the dates.' },
];

describe('PollySpeechSynthesizer', () => {
  it('PollyClient satisfies the client interface', () => {
    const client: PollySynthesizeClient = new PollyClient({ region: 'us-east-1' });
    expect(typeof client.send).toBe('function');
  });

  it('calls SynthesizeSpeech once per line with the host voice, neural engine and MP3 at 24 kHz', async () => {
    const client = new FakePollyClient();
    const synthesizer = new PollySpeechSynthesizer(client, { baseDelayMs: 1 });
    const [host, guest] = synthesizer.hostVoices('en') as [string, string];
    const script = lines.map((line) => ({ ...line, voice: line.voice === 'Joanna' ? host : guest }));
    await synthesizer.synthesize(script, join(dir, 'calls.mp3'));
    expect(client.inputs.map((input) => input.VoiceId)).toEqual(['Joanna', 'Matthew', 'Joanna']);
    for (const [index, input] of client.inputs.entries()) {
      expect(input).toMatchObject({
        Engine: 'neural',
        OutputFormat: 'mp3',
        SampleRate: '24000',
        TextType: 'text',
        Text: lines[index]?.text,
      });
    }
  });

  it('writes one MP3 that ffmpeg decodes, as long as reported: the lines plus the pauses', async () => {
    const client = new FakePollyClient();
    const synthesizer = new PollySpeechSynthesizer(client, { pauseMs: 480 });
    const output = join(dir, 'joined.mp3');
    const { duration_ms } = await synthesizer.synthesize(lines, output);

    const bytes = await readFile(output);
    expect(bytes.subarray(0, 3).toString('latin1')).not.toBe('ID3'); // tags stripped
    const joanna = mp3DurationMs(voiceAudio.get('Joanna') as Buffer);
    const matthew = mp3DurationMs(voiceAudio.get('Matthew') as Buffer);
    expect(Math.abs(duration_ms - (2 * joanna + matthew + 2 * 480))).toBeLessThanOrEqual(2);

    const probe = spawnSync('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=codec_name',
      '-of',
      'csv=p=0',
      output,
    ]);
    expect(probe.stdout.toString().trim()).toBe('mp3');
    expect(Math.abs(((await probeDurationMs(output)) as number) - duration_ms)).toBeLessThanOrEqual(50);
    const decoded = spawnSync('ffmpeg', ['-v', 'error', '-i', output, '-f', 's16le', '-ac', '1', 'pipe:1'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(decoded.status).toBe(0);
    expect(decoded.stderr.toString().trim()).toBe('');
    const decodedMs = (decoded.stdout.length / 2 / 24_000) * 1000;
    expect(Math.abs(decodedMs - duration_ms)).toBeLessThanOrEqual(50);
  });

  it('retries throttling and reports ProviderThrottledError when it persists', async () => {
    const client = new FakePollyClient([throttled(), throttled(), throttled()]);
    const synthesizer = new PollySpeechSynthesizer(client, { maxRetries: 2, baseDelayMs: 1 });
    const failure = synthesizer.synthesize([lines[0] as (typeof lines)[0]], join(dir, 'throttled.mp3'));
    await expect(failure).rejects.toBeInstanceOf(ProviderThrottledError);
    await expect(failure).rejects.toThrow(/ThrottlingException, 3 attempts/);
    expect(client.inputs).toHaveLength(3);
  });

  it('recovers from a throttle and a service failure within its retries', async () => {
    const serviceFailure = new ServiceFailureException({
      message: 'boom',
      $metadata: { httpStatusCode: 500 },
    });
    const client = new FakePollyClient([throttled(), serviceFailure]);
    const synthesizer = new PollySpeechSynthesizer(client, { maxRetries: 2, baseDelayMs: 1 });
    const { duration_ms } = await synthesizer.synthesize(
      [lines[0] as (typeof lines)[0]],
      join(dir, 'retry.mp3'),
    );
    expect(duration_ms).toBeGreaterThan(1000);
    expect(client.inputs).toHaveLength(3);
  });

  it('fails at once on a request error, naming only the exception', async () => {
    const secret = 'The merger with Initech closes on Friday.';
    const error = new TextLengthExceededException({
      message: `Text too long: ${secret}`,
      $metadata: { httpStatusCode: 400 },
    });
    const client = new FakePollyClient([error]);
    const synthesizer = new PollySpeechSynthesizer(client, { baseDelayMs: 1 });
    const failure = synthesizer.synthesize([{ voice: 'Joanna', text: secret }], join(dir, 'fatal.mp3'));
    await expect(failure).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(failure).rejects.toThrow(/TextLengthExceededException/);
    await failure.catch((caught: Error) => expect(caught.message).not.toContain('Initech'));
    expect(client.inputs).toHaveLength(1);
  });

  it('splits a 3500-character line at a sentence boundary into two calls', async () => {
    const sentence = 'This sentence is exactly fifty characters long ok. ';
    expect(sentence).toHaveLength(51);
    const text = sentence.repeat(69).slice(0, 3500);
    const client = new FakePollyClient();
    const synthesizer = new PollySpeechSynthesizer(client);
    await synthesizer.synthesize([{ voice: 'Joanna', text }], join(dir, 'long.mp3'));
    expect(client.inputs).toHaveLength(2);
    const pieces = client.inputs.map((input) => input.Text as string);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(POLLY_MAX_CHARS);
    expect(pieces[0]?.endsWith('ok.')).toBe(true);
    expect(pieces.join(' ')).toBe(text.trim());
  });

  it('rejects a script with no text', async () => {
    const synthesizer = new PollySpeechSynthesizer(new FakePollyClient());
    await expect(
      synthesizer.synthesize([{ voice: 'Joanna', text: '  ' }], join(dir, 'empty.mp3')),
    ).rejects.toThrow(GenerationFailedError);
  });
});

describe('PollySpeechSynthesizer cancellation (the real PollyClient, a local HTTP/2 stand-in)', () => {
  /** Answers the first SynthesizeSpeech with Joanna's MP3 and holds every later one; counts streams. */
  async function standIn() {
    const streams: ServerHttp2Stream[] = [];
    const server = createHttp2Server();
    server.on('stream', (stream) => {
      streams.push(stream);
      stream.on('error', () => {}); // the client's reset of a held stream
      if (streams.length > 1) return;
      stream.respond({ ':status': 200, 'content-type': 'audio/mpeg' });
      stream.end(voiceAudio.get('Joanna'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new PollyClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'not-a-secret' },
      maxAttempts: 1,
    });
    const close = () => {
      client.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return { streams, client, close };
  }

  it('cancels the requests in flight, rejects with AbortError and writes no MP3', async () => {
    const { streams, client, close } = await standIn();
    try {
      const synthesizer = new PollySpeechSynthesizer(client, { concurrency: 1 });
      const output = join(dir, 'cancelled.mp3');
      const controller = new AbortController();
      const work = synthesizer.synthesize(lines, output, controller.signal);
      work.catch(() => {});
      await waitUntil(() => streams.length === 2, 'the first line answered and the second held');
      controller.abort();
      await expect(work).rejects.toMatchObject({ name: 'AbortError' });
      await waitUntil(() => streams[1]?.closed === true, 'the client to reset the held request');
      expect(streams).toHaveLength(2); // no line after the abort was requested
      await expect(readFile(output)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await close();
    }
  });

  it('stops waiting to retry a throttled request when aborted', async () => {
    const client = new FakePollyClient([throttled(), throttled()]);
    const synthesizer = new PollySpeechSynthesizer(client, { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const controller = new AbortController();
    const work = synthesizer.synthesize(lines.slice(0, 1), join(dir, 'throttled.mp3'), controller.signal);
    work.catch(() => {});
    await waitUntil(() => client.inputs.length === 1, 'the first, throttled request');
    controller.abort();
    await expect(work).rejects.toMatchObject({ name: 'AbortError' }); // not after the 30-60 s backoff
    expect(client.inputs).toHaveLength(1);
  });
});

describe('splitForPolly', () => {
  it('keeps short text whole and cuts sentence-less text at spaces, then anywhere', () => {
    expect(splitForPolly('  Hello there.  ')).toEqual(['Hello there.']);
    expect(splitForPolly('   ')).toEqual([]);
    const words = splitForPolly('word '.repeat(20), 12);
    for (const piece of words) expect(piece.length).toBeLessThanOrEqual(12);
    expect(words.join(' ')).toBe('word '.repeat(20).trim());
    const blob = splitForPolly('x'.repeat(25), 10);
    expect(blob).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });
});

describe('Polly host voices', () => {
  it('gives two distinct voices for en, en-GB and pt-BR, and null for an unsupported language', () => {
    expect(pollyHostVoices('en')).toEqual(['Joanna', 'Matthew']);
    expect(pollyHostVoices('en-US')).toEqual(['Joanna', 'Matthew']);
    expect(pollyHostVoices('en-GB')).toEqual(['Amy', 'Brian']);
    expect(pollyHostVoices('en_gb')).toEqual(['Amy', 'Brian']);
    expect(pollyHostVoices('pt-BR')).toEqual(['Camila', 'Thiago']);
    expect(pollyHostVoices('de')).toEqual(['Vicki', 'Daniel']);
    expect(pollyHostVoices('xx')).toBeNull();
    expect(pollyHostVoices('ko-KR')).toBeNull();
    expect(pollyHostVoices('')).toBeNull();
    for (const language of pollyLanguages()) {
      const voices = pollyHostVoices(language);
      expect(voices, language).not.toBeNull();
      expect(new Set(voices).size, language).toBe(2);
    }
  });

  it('reads another region of a supported language with its default voices', () => {
    expect(pollyHostVoices('en-AU')).toEqual(['Joanna', 'Matthew']);
    expect(pollyHostVoices('es-419')).toEqual(['Lucia', 'Sergio']);
    expect(new PollySpeechSynthesizer(new FakePollyClient()).hostVoices('fr-CA')).toEqual([
      'Gabrielle',
      'Liam',
    ]);
    expect(pollyLanguages()).toContain('en');
    expect(pollyLanguages()).toContain('ja-JP');
  });
});
