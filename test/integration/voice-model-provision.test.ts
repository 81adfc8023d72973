import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  provisionVoiceModel,
  readVoiceModelState,
  type VoiceModelState,
} from '../../src/adapters/speech/voices/voice-provision.ts';
import { speakerTestModel } from '../support/speaker-test-model.ts';

/**
 * The voice model found or fetched as npm start begins: a local HTTP server stands in for the model
 * host (serving bytes that are not the published file), so the pinned checksum is what refuses it.
 */
let server: Server;
let mirror: string;
let dir: string;
const requested: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notes-voice-provision-'));
  server = createServer((request, response) => {
    requested.push(request.url ?? '');
    response.writeHead(200, { 'content-length': '4096' }).end(Buffer.alloc(4096, 1));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}/voices`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

async function provisioned(model: string, sub: string, baseUrl?: string): Promise<VoiceModelState[]> {
  const states: VoiceModelState[] = [];
  const last = await provisionVoiceModel({
    model,
    dir: join(dir, sub),
    ...(baseUrl ? { baseUrl } : {}),
    onState: (state) => states.push(state),
  });
  expect(await readVoiceModelState(join(dir, sub))).toEqual(last);
  return states;
}

describe('the voice model, found or fetched once', () => {
  it('is off when NOTES_VOICE_MODEL=off, and fetches nothing', async () => {
    expect(await provisioned('off', 'off')).toEqual([{ state: 'off', model: 'off' }]);
    expect(requested).toEqual([]);
  });

  it('fetches the known model from the mirror and refuses a file that is not the published one', async () => {
    const states = await provisioned('wespeaker-resnet34-lm', 'mirror', mirror);
    expect(requested).toEqual(['/voices/wespeaker_en_voxceleb_resnet34_LM.onnx']);
    expect(states.map((state) => state.state)).toContain('fetching');
    const last = states.at(-1);
    expect(last).toMatchObject({ state: 'unavailable', model: 'wespeaker-resnet34-lm' });
    if (last?.state !== 'unavailable') return;
    expect(last.reason).toMatch(
      /is not the published voice model wespeaker-resnet34-lm: its SHA-256 checksum is/,
    );
    expect(last.remedy).toBe(
      'point NOTES_VOICE_MODEL_URL at the published files, then restart the service or run `npm run models -- fetch wespeaker-resnet34-lm`',
    );
  });

  it('says so when the model host cannot be reached', async () => {
    const last = (await provisioned('wespeaker-resnet34-lm', 'offline', 'http://127.0.0.1:9/voices')).at(-1);
    expect(last).toMatchObject({ state: 'unavailable' });
    if (last?.state !== 'unavailable') return;
    expect(last.reason).toMatch(
      /^Cannot reach 127\.0\.0\.1:9 to download the voice model wespeaker-resnet34-lm/,
    );
    expect(last.remedy).toMatch(/^once this machine can reach it, restart the service/);
  });

  it('names the known models for a name it does not know', async () => {
    const last = (await provisioned('ecapa-huge', 'unknown')).at(-1);
    expect(last).toEqual({
      state: 'unavailable',
      model: 'ecapa-huge',
      reason: 'unknown voice model "ecapa-huge"',
      remedy: "set NOTES_VOICE_MODEL to wespeaker-resnet34-lm, an .onnx file's path, or off",
    });
  });

  it('uses a model given by path once it loads in sherpa-onnx, with the binding to run it', async () => {
    const path = await speakerTestModel();
    const last = (await provisioned(path, 'path')).at(-1);
    expect(last).toMatchObject({ state: 'ready', model: path, path });
    if (last?.state !== 'ready') return;
    expect(await readFile(last.binding, 'utf8')).toContain('SpeakerEmbeddingExtractor');
  });
});
