import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Job } from '../../src/domain/job.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import type { Services } from '../../src/wiring/services.ts';

const run = promisify(execFile);

/**
 * A WebM as MediaRecorder leaves one: Opus sound written as a live stream (ffmpeg's `-live 1`), so
 * its header holds no duration and a browser says Infinity until it has read to the end.
 */
async function liveWebmOf(seconds: number): Promise<string> {
  const file = join(tmpdir(), `notes-live-${seconds}s.webm`);
  if (existsSync(file)) return file;
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000', '-t', String(seconds)],
    ...['-c:a', 'libopus', '-live', '1', '-f', 'webm', `${file}.part`],
  ]);
  await run('mv', [`${file}.part`, file]);
  return file;
}

/**
 * A note recorded in the browser and not transcribed yet, written through the runtime's stores: its
 * recording uploaded, its transcription queued. With the runtime's workers off it stays queued, so
 * the page shows the recording with no transcript to take a length from.
 */
export async function storeUntranscribedBrowserRecording(
  services: Pick<Services, 'notes' | 'blobs'>,
  account: string,
  note: { id: string; title: string; seconds: number },
  /** Where its transcription is instead of queued (e.g. waiting for a recogniser). */
  job: Partial<Pick<Job, 'status' | 'stage' | 'waiting'>> = {},
): Promise<void> {
  const audio = await liveWebmOf(note.seconds);
  const now = Date.now();
  await services.notes.createJobIfAbsent({
    account_id: account,
    note_id: note.id,
    kind: 'transcription',
    status: 'queued',
    stage: 'queued',
    attempts: 0,
    created_at: now,
    updated_at: now,
    detail: null,
    ...job,
  });
  await services.notes.createNoteIfAbsent({
    account_id: account,
    note_id: note.id,
    title: note.title,
    state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    audio: { content_type: 'audio/webm', size_bytes: (await stat(audio)).size, uploaded_at: now },
  });
  await services.blobs.putFile(objectKeys.audio(account, note.id), audio, 'audio/webm');
}
