import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { speakerTestModel, voiceModelReady } from '../support/speaker-test-model.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { type VoiceRecordings, voiceRecordings } from '../support/voice-recordings.ts';
import { describeRun, runCli, stdoutJson } from './run-cli.ts';

/** `notes voices ...` against a local service with the test voice model (voice-profiles.test.ts says why it will do). */
let service: RunningService;
let env: Record<string, string>;
let recordings: VoiceRecordings;

beforeAll(async () => {
  recordings = await voiceRecordings();
  service = await startService({ env: { NOTES_VOICE_MODEL: await speakerTestModel() } });
  env = { NOTES_BASE_URL: service.baseUrl, NOTES_API_KEY: service.apiKey };
  await voiceModelReady(service.baseUrl);
}, 300_000);
afterAll(() => service?.stop());

async function transcribed(file: string): Promise<string> {
  const api = client(service.baseUrl, service.apiKey);
  const noteId = randomUUID();
  await submitAndUpload(api, noteId, file, 'audio/wav', 'Voices', { speakers_expected: 1 });
  expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
  return noteId;
}

interface Profiles {
  enabled: boolean;
  profiles: { profile_id: string; name: string; taught: number }[];
}

describe('notes voices ...', () => {
  it('turns profiles on, remembers a speaker, names them in the next note, confirms, renames and deletes by name', async () => {
    const on = await runCli(['voices', 'on'], env);
    expect(on.code, describeRun(on)).toBe(0);
    expect(stdoutJson<Profiles>(on).enabled).toBe(true);

    const first = await transcribed(recordings.first);
    const kept = await runCli(['voices', 'remember', first, 'Speaker 1', '--name', 'Ada'], env);
    expect(kept.code, describeRun(kept)).toBe(0);
    expect(stdoutJson<{ name: string }>(kept).name).toBe('Ada');
    expect(kept.stderr).toContain("Kept Ada's voice.");

    const second = await transcribed(recordings.second);
    const confirmed = await runCli(['voices', 'confirm', second, 'Ada'], env);
    expect(confirmed.code, describeRun(confirmed)).toBe(0);
    expect(
      stdoutJson<{ voice_matches: Record<string, { status: string }> }>(confirmed).voice_matches,
    ).toMatchObject({
      'Speaker 1': { status: 'confirmed' },
    });

    const renamed = await runCli(['voices', 'rename', 'ada', 'Ada Lovelace'], env);
    expect(renamed.code, describeRun(renamed)).toBe(0);
    const listed = stdoutJson<Profiles>(await runCli(['voices', 'list'], env));
    expect(listed.profiles).toMatchObject([{ name: 'Ada Lovelace', taught: 2 }]);

    const unconfirmed = await runCli(['voices', 'delete', 'Ada Lovelace'], env);
    expect(unconfirmed.stderr).toMatch(/cannot be undone: add --yes/);
    const deleted = await runCli(['voices', 'delete', 'Ada Lovelace', '--yes'], env);
    expect(deleted.code, describeRun(deleted)).toBe(0);
    expect(deleted.stdout).toBe('');
    expect(stdoutJson<Profiles>(await runCli(['voices', 'list'], env)).profiles).toEqual([]);
  });

  it('asks for --yes before turning profiles off, which deletes them all', async () => {
    const first = await transcribed(recordings.first);
    await runCli(['voices', 'remember', first, 'Speaker 1', '--name', 'Ada'], env);
    const unconfirmed = await runCli(['voices', 'off'], env);
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toMatch(/deletes every one: add --yes/);
    expect(stdoutJson<Profiles>(await runCli(['voices', 'list'], env)).profiles).toHaveLength(1);
    const off = await runCli(['voices', 'off', '--yes'], env);
    expect(off.code, describeRun(off)).toBe(0);
    expect(stdoutJson<Profiles>(off)).toEqual({ enabled: false, profiles: [] });
  });

  it('says which profile name is unknown', async () => {
    const missing = await runCli(['voices', 'delete', 'Nobody', '--yes'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no voice profile is named "Nobody"/);
  });
});
