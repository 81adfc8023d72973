/**
 * A short recording submitted while a long one is recognised (issue 39): how much longer it takes
 * than alone, and what its job said while it waited. In one service and one run: the short clip
 * alone (the baseline), then the long recording submitted, and once its recognisers run, the short
 * clip again. The long one's wall time is kept too: sharing must not starve it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Service, submitAndUpload } from './support.ts';

const POLL_MS = 500;
const MAX_JOB_MS = 60 * 60_000;

/** What a job said at one poll while it was not done. */
interface Said {
  at_seconds: number;
  stage: string;
  waiting?: { recordings_ahead: number; estimated_wait_seconds?: number };
}

export interface ShortBehindLongResult {
  short_alone_seconds: number;
  short_behind_long_seconds: number;
  /** Behind ÷ alone. */
  ratio: number;
  /** Seconds the short one spent in stage `waiting` (0 when it never waited). */
  short_waited_seconds: number;
  /** The first estimate of the wait its job gave, when it gave one. */
  first_estimate_seconds: number | null;
  long_audio_seconds: number;
  long_seconds: number;
  /** Each distinct thing the short job said, in order. */
  short_said: Said[];
}

export async function shortBehindLong(
  service: Service,
  short: string,
  long: string,
  longAudioSeconds: number,
): Promise<ShortBehindLongResult> {
  process.stderr.write('  short behind long: the short clip alone\n');
  const alone = await timeTranscription(service, short, 'Benchmark: short alone');

  process.stderr.write(
    '  short behind long: the long recording, then the short clip once it is recognised\n',
  );
  const longId = randomUUID();
  const longStarted = performance.now();
  await submitAndUpload(service, longId, long, 'Benchmark: long, with a short one behind it');
  const longDone = (async () => {
    await waitForStage(service, longId, (stage) => stage === 'recognizing');
    // Its recognisers hold every slot a moment later (the first chunk's process is started).
    await sleep(3_000);
    const behind = await timeTranscription(service, short, 'Benchmark: short behind long');
    const longSaid = await pollUntilDone(service, longId);
    return { behind, longSeconds: (performance.now() - longStarted) / 1000, longSaid };
  })();
  const { behind, longSeconds } = await longDone;
  const waits = behind.said.filter((said) => said.stage === 'waiting');
  const leftWaiting = behind.said.find(
    (said, i) => i > 0 && behind.said[i - 1]?.stage === 'waiting' && said.stage !== 'waiting',
  );
  const waitedSeconds =
    waits.length === 0 ? 0 : (leftWaiting?.at_seconds ?? behind.seconds) - (waits[0]?.at_seconds ?? 0);
  return {
    short_alone_seconds: round(alone.seconds),
    short_behind_long_seconds: round(behind.seconds),
    ratio: round(behind.seconds / alone.seconds, 2),
    short_waited_seconds: round(waitedSeconds),
    first_estimate_seconds:
      waits.find((said) => said.waiting?.estimated_wait_seconds !== undefined)?.waiting
        ?.estimated_wait_seconds ?? null,
    long_audio_seconds: round(longAudioSeconds),
    long_seconds: round(longSeconds),
    short_said: behind.said,
  };
}

export function shortBehindLongTable(r: ShortBehindLongResult): string {
  const said = r.short_said
    .map((s) => {
      const waiting = s.waiting
        ? ` (${s.waiting.recordings_ahead} ahead${s.waiting.estimated_wait_seconds === undefined ? '' : `, about ${s.waiting.estimated_wait_seconds} s`})`
        : '';
      return `${s.at_seconds} s ${s.stage}${waiting}`;
    })
    .join('; ');
  return [
    `  short behind long: alone ${r.short_alone_seconds} s; submitted while ${r.long_audio_seconds} s of audio was recognised: ${r.short_behind_long_seconds} s (${r.ratio}×), of it waiting ${r.short_waited_seconds} s` +
      (r.first_estimate_seconds === null ? '' : ` (first estimate ${r.first_estimate_seconds} s)`),
    `  short behind long: the long one took ${r.long_seconds} s`,
    `  short behind long: what the short job said: ${said}`,
  ].join('\n');
}

/** Submit, upload and poll until the transcript is served: the wall time and what the job said. */
async function timeTranscription(service: Service, file: string, title: string) {
  const noteId = randomUUID();
  const started = performance.now();
  await submitAndUpload(service, noteId, file, title);
  const said = await pollUntilDone(service, noteId, started);
  return { seconds: (performance.now() - started) / 1000, said };
}

async function pollUntilDone(service: Service, noteId: string, started = performance.now()): Promise<Said[]> {
  const said: Said[] = [];
  const deadline = Date.now() + MAX_JOB_MS;
  for (;;) {
    const response = await service.api('GET', `/v1/notes/${noteId}/transcription`);
    if (response.status === 200) return said;
    if (response.status !== 202)
      throw new Error(`transcription: ${response.status} ${JSON.stringify(response.body)}`);
    const stage = String(response.body.stage);
    const wait = response.body.waiting as
      | { recordings_ahead: number; estimated_start_at?: number }
      | undefined;
    const waiting: Said['waiting'] = wait && {
      recordings_ahead: wait.recordings_ahead,
      ...(wait.estimated_start_at === undefined
        ? {}
        : { estimated_wait_seconds: round(Math.max(0, wait.estimated_start_at - Date.now()) / 1000) }),
    };
    const last = said.at(-1);
    // A change of stage or of the recordings ahead; the estimate of that moment goes with it.
    if (!last || last.stage !== stage || last.waiting?.recordings_ahead !== waiting?.recordings_ahead) {
      said.push({
        at_seconds: round((performance.now() - started) / 1000),
        stage,
        ...(waiting ? { waiting } : {}),
      });
    }
    if (Date.now() > deadline) throw new Error(`transcription still pending after ${MAX_JOB_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

async function waitForStage(service: Service, noteId: string, reached: (stage: string) => boolean) {
  const deadline = Date.now() + MAX_JOB_MS;
  for (;;) {
    const response = await service.api('GET', `/v1/notes/${noteId}/transcription`);
    if (response.status === 200 || reached(String(response.body.stage))) return;
    if (Date.now() > deadline) throw new Error('the long recording never reached recognition');
    await sleep(POLL_MS);
  }
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
