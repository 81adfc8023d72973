import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConversations, fixtureNamed } from '../fixtures/conversations/generate.ts';
import { client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { speakerTestModel } from '../support/speaker-test-model.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { waitUntil } from '../support/wait.ts';

/**
 * The diarizer with a neural voice model, over HTTP: sherpa-onnx-node runs a WeSpeaker-shaped model
 * of random weights (scripts/speaker-test-model.ts), so the plumbing is real (model checked, loaded
 * in the diarizer's thread, fed each window's speech, clustered) and the accuracy is not measured.
 */
let withModel: RunningService;
let brokenModel: RunningService;
let twoSpeakers: string;

interface Transcript {
  speakers_by?: string;
  conversation_segments: { speaker: string }[];
}

beforeAll(async () => {
  twoSpeakers = fixtureNamed(await ensureConversations(), 'two-speakers').audio;
  const notAModel = join(tmpdir(), `not-a-voice-model-${randomUUID()}.onnx`);
  await writeFile(notAModel, Buffer.alloc(2048, 3));
  [withModel, brokenModel] = await Promise.all([
    startService({ env: { NOTES_VOICE_MODEL: await speakerTestModel() } }),
    startService({ env: { NOTES_VOICE_MODEL: notAModel } }),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([withModel?.stop(), brokenModel?.stop()]);
});

async function voices(service: RunningService): Promise<Record<string, unknown>> {
  const body = (await (await fetch(`${service.baseUrl}/readyz`)).json()) as {
    voices: Record<string, unknown>;
  };
  return body.voices;
}

async function transcribe(service: RunningService, extra: Record<string, unknown>): Promise<Transcript> {
  const api = client(service.baseUrl, service.apiKey);
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, twoSpeakers, 'audio/wav', 'Two voices', extra);
  const { final } = await pollUntilDone(api, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return final.body as unknown as Transcript;
}

describe('speakers told apart by a neural voice model', () => {
  it('checks the model, says it is ready in /readyz, and names it on each transcript', async () => {
    await waitUntil(
      async () => (await voices(withModel)).state === 'ready',
      'the voice model to be ready',
      60_000,
    );
    const transcript = await transcribe(withModel, { speakers_expected: 2 });
    expect(transcript.speakers_by).toBe('voice-model:wespeaker-spectral-shape.onnx');
    expect(new Set(transcript.conversation_segments.map((s) => s.speaker)).size).toBe(2);
  });

  it('refuses a file sherpa-onnx cannot load without the service going down, and says why', async () => {
    await waitUntil(
      async () => (await voices(brokenModel)).state === 'unavailable',
      'the broken voice model to be refused',
      60_000,
    );
    expect(String((await voices(brokenModel)).reason)).toMatch(/^sherpa-onnx could not load the voice model/);
    const transcript = await transcribe(brokenModel, {});
    expect(transcript.speakers_by).toBe('voice-statistics');
  });
});
