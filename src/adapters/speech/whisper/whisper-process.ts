/**
 * A whisper.cpp run in a process of its own, started by WhisperSpeechToText for one stretch of a
 * recording: a crash in native code (a model that does not fit this build fails an assertion and
 * aborts) ends this process, never the service, and stopping it is a kill. It loads koffi and the
 * binding by the paths the service gives it (a bundle of this file has no node_modules beside it).
 */
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadWhisperApi, type WhisperApi } from './whisper-c-api.ts';
import type { WhisperJob, WhisperMessage, WhisperPiece } from './whisper-protocol.ts';

function send(message: WhisperMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function readJob(): Promise<WhisperJob> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as WhisperJob;
}

/** Only the stretch this process hears is read (the decoded file of a long recording is large). */
async function readRange(job: WhisperJob): Promise<Float32Array> {
  const file = await open(job.pcm);
  try {
    const { size } = await file.stat();
    const end = Math.min(size, job.end === undefined ? size : job.end + 1);
    const audio = new Uint8Array(Math.max(0, end - job.start));
    for (let done = 0; done < audio.length; ) {
      const { bytesRead } = await file.read(audio, done, audio.length - done, job.start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    // s16le to the -1..1 floats whisper.cpp takes.
    const pcm = new Int16Array(audio.buffer, 0, Math.floor(audio.length / 2));
    return Float32Array.from(pcm, (sample) => sample / 32768);
  } finally {
    await file.close();
  }
}

async function run(): Promise<void> {
  const job = await readJob();
  const load = createRequire(job.koffi);
  const whisper = loadWhisperApi(load(job.koffi), job.binding);
  // whisper.cpp logs every model detail to standard error: only its errors are kept there, where the
  // service reads the last line when this process fails (they name files and tensors, never words).
  whisper.onLog((level, text) => {
    if (level === 'error') process.stderr.write(text);
  });
  const samples = await readRange(job);
  const context = whisper.initFromFile(job.model);
  if (context === null)
    throw new Error('whisper.cpp could not load the model (is it a whisper.cpp ggml model?)');
  try {
    const status = whisper.full(context, samples, {
      threads: job.threads,
      language: job.language,
      onProgress: (percent) => send({ progress: percent / 100 }),
    });
    if (status !== 0) throw new Error(`whisper.cpp failed to transcribe (whisper_full returned ${status})`);
    const language = job.language === 'auto' ? whisper.detectedLanguage(context) : job.language;
    send({
      result: {
        ...(language ? { language } : {}),
        pieces: heardPieces(whisper, context),
        samples: samples.length,
      },
    });
  } finally {
    whisper.free(context);
  }
}

/** Every text token heard, with its times and probability; whisper.cpp's special tokens left out. */
function heardPieces(whisper: WhisperApi, context: unknown): WhisperPiece[] {
  const firstSpecial = whisper.endOfText(context);
  const pieces: WhisperPiece[] = [];
  for (let segment = 0; segment < whisper.segments(context); segment++) {
    for (let token = 0; token < whisper.tokens(context, segment); token++) {
      const data = whisper.tokenData(context, segment, token);
      if (data.id >= firstSpecial) continue;
      // Token times are in centiseconds.
      pieces.push({
        text: whisper.tokenText(context, segment, token),
        t0: data.t0 * 10,
        t1: data.t1 * 10,
        probability: data.p,
      });
    }
  }
  return pieces;
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    send({ error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
