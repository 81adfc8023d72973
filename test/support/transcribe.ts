import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Api, ApiResponse } from './api.ts';
import { speechFixture } from './fixtures.ts';

export interface UploadTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
  expires_at: number;
}

/** Submits a recording and PUTs its bytes to the presigned URL, as a client does. */
export async function submitAndUpload(
  api: Api,
  noteId: string,
  file: string,
  contentType: string,
  title = 'Test recording',
  extra: Record<string, unknown> = {},
): Promise<ApiResponse> {
  const { size } = await stat(file);
  const submitted = await api('POST', `/v1/notes/${noteId}/transcription`, {
    body: { title, content_type: contentType, size_bytes: size, ...extra },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
  const upload = submitted.body.upload as UploadTarget;
  const put = await fetch(upload.url, {
    method: upload.method,
    headers: upload.headers,
    body: await readFile(file),
  });
  expect(put.status).toBe(200);
  return submitted;
}

/**
 * Polls a GET operation the way the spec tells clients to: at least 2 s apart, stopping on anything
 * but 202, with a bounded deadline. Returns the final response and every status seen.
 */
export async function pollUntilDone(
  api: Api,
  path: string,
  { deadlineMs = 180_000, intervalMs = 2_000 }: { deadlineMs?: number; intervalMs?: number } = {},
): Promise<{ final: ApiResponse; seen: ApiResponse[] }> {
  const seen: ApiResponse[] = [];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const response = await api('GET', path);
    seen.push(response);
    if (response.status !== 202) return { final: response, seen };
    if (Date.now() > deadline)
      throw new Error(`still 202 after ${deadlineMs} ms: ${JSON.stringify(response.body)}`);
    await sleep(intervalMs);
  }
}

/** A new note with a spoken recording (flite's slt voice), uploaded and transcribed; its ID. */
export async function transcribedNote(api: Api, title: string): Promise<string> {
  const noteId = randomUUID();
  const fixture = await speechFixture('slt', 'wav');
  await submitAndUpload(api, noteId, fixture.file, fixture.contentType, title);
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
  expect(final.status).toBe(200);
  return noteId;
}
