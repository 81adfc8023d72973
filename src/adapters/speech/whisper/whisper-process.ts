/**
 * A whisper.cpp run in a process of its own, started by WhisperSpeechToText for one stretch of a
 * recording: a crash in native code (a model that does not fit this build fails an assertion and
 * aborts) ends this process, never the service, and stopping it is a kill. Node built-ins only: it
 * loads the binding by the path the service gives it.
 */
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { WhisperJob, WhisperMessage, WhisperPiece } from './whisper-protocol.ts';

/** The part of @fugood/whisper.node's native module used here (its lib/binding.ts describes it). */
interface NativeWhisper {
  WhisperContext: {
    new (options: { filePath: string; useGpu?: boolean }): NativeContext;
    toggleNativeLog(enable: boolean, callback?: (level: string, text: string) => void): void;
  };
}

interface NativeContext {
  /** 16-bit little-endian PCM at 16 kHz, mono. */
  transcribeData(
    audio: ArrayBuffer,
    options: {
      language: string;
      maxThreads: number;
      tokenTimestamps: boolean;
      maxLen: number;
      onProgress: (percent: number) => void;
    },
  ): { promise: Promise<{ language?: string; segments: WhisperPiece[] }> };
  release(): Promise<void>;
}

function send(message: WhisperMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function readJob(): Promise<WhisperJob> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as WhisperJob;
}

/** Only the stretch this process hears is read (the decoded file of a long recording is large). */
async function readRange(job: WhisperJob): Promise<ArrayBuffer> {
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
    return audio.buffer;
  } finally {
    await file.close();
  }
}

async function run(): Promise<void> {
  const job = await readJob();
  const native = createRequire(import.meta.url)(job.binding) as NativeWhisper;
  // whisper.cpp logs every model detail to standard error: only its errors are kept there, where the
  // service reads the last line when this process fails (they name files and tensors, never words).
  native.WhisperContext.toggleNativeLog(true, (level, text) => {
    if (level === 'error') process.stderr.write(text);
  });
  const audio = await readRange(job);
  const context = new native.WhisperContext({ filePath: job.model, useGpu: false });
  // One token per segment, each with its own times: the words and their times come from these.
  const { promise } = context.transcribeData(audio, {
    language: job.language,
    maxThreads: job.threads,
    tokenTimestamps: true,
    maxLen: 1,
    onProgress: (percent) => send({ progress: percent / 100 }),
  });
  // The binding drops a failure of whisper.cpp's own (its callback gets one argument, the promise never
  // settles, and with nothing left to do this process exits 0): the service takes an exit without a
  // result as that failure.
  const result = await promise;
  send({
    result: {
      ...(result.language ? { language: result.language } : {}),
      pieces: result.segments,
      samples: audio.byteLength / 2,
    },
  });
  await context.release();
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    send({ error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
