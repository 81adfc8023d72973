import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../support/accounts.ts';
import { type Api, client } from '../support/api.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';
import { speakerTestModel, voiceModelReady } from '../support/speaker-test-model.ts';
import { pollUntilDone, submitAndUpload } from '../support/transcribe.ts';
import { type VoiceRecordings, voiceRecordings } from '../support/voice-recordings.ts';

/**
 * Voices known across notes, over HTTP, with a real voice model in sherpa-onnx: the test model
 * (scripts/speaker-test-model.ts) describes a voice by its long-term spectral shape, crude but the
 * same way in every recording, so a profile made from one recording of a person names them in
 * another and not a person whose voice differs. Real recordings of two people the project never
 * tuned on: a LibriVox reader and the speaker of the cards recordings.
 */
interface VoiceMatch {
  profile_id: string;
  name: string;
  similarity: number;
  status: 'suggested' | 'confirmed';
}
interface NoteBody {
  speaker_names: Record<string, string>;
  voice_matches: Record<string, VoiceMatch>;
}
interface ProfileBody {
  profile_id: string;
  name: string;
  voices_by: string;
  speech_seconds: number;
  taught: number;
}

let service: RunningService;
let owner: Api;
let stranger: Api;
let recordings: VoiceRecordings;

beforeAll(async () => {
  recordings = await voiceRecordings();
  service = await startService({ env: { NOTES_VOICE_MODEL: await speakerTestModel() } });
  owner = client(service.baseUrl, service.apiKey);
  stranger = client(service.baseUrl, (await createAccount(service, 'stranger')).api_key);
  await voiceModelReady(service.baseUrl);
}, 300_000);

afterAll(() => service?.stop());

async function transcribed(file: string, speakersExpected = 1): Promise<string> {
  const noteId = randomUUID();
  await submitAndUpload(owner, noteId, file, 'audio/wav', 'Voices', { speakers_expected: speakersExpected });
  const { final } = await pollUntilDone(owner, `/v1/notes/${noteId}/transcription`);
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return noteId;
}

async function note(noteId: string): Promise<NoteBody> {
  const response = await owner<NoteBody>('GET', `/v1/notes/${noteId}`);
  expect(response.status).toBe(200);
  return response.body;
}

describe('voices known across notes', () => {
  let firstNote: string;
  let profile: ProfileBody;

  it('keeps nothing until the account turns voice profiles on', async () => {
    firstNote = await transcribed(recordings.first);
    const listed = await owner('GET', '/v1/account/voice-profiles');
    expect(listed.body).toEqual({ enabled: false, profiles: [] });
    const refused = await owner('POST', '/v1/account/voice-profiles', {
      body: {
        note_id: firstNote,
        speaker: 'Speaker 1',
        name: 'Ada',
      },
    });
    expect(refused.status).toBe(409);
    expect(String(refused.body.detail)).toMatch(/Voice profiles are off for this account/);
  });

  it('makes a profile from a named speaker: a name and figures, never the vector', async () => {
    const on = await owner('PATCH', '/v1/account/voice-profiles', { body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.enabled).toBe(true);
    await owner('PATCH', `/v1/notes/${firstNote}`, { body: { speaker_names: { 'Speaker 1': 'Ada' } } });
    const made = await owner<ProfileBody>('POST', '/v1/account/voice-profiles', {
      body: { note_id: firstNote, speaker: 'Ada' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    profile = made.body;
    expect(profile).toMatchObject({
      name: 'Ada',
      voices_by: 'voice-model:wespeaker-spectral-shape.onnx',
      taught: 1,
    });
    expect(profile.speech_seconds).toBeGreaterThan(10);
    expect(JSON.stringify(made.body)).not.toMatch(/vector/);
    expect((await note(firstNote)).voice_matches['Speaker 1']).toMatchObject({
      profile_id: profile.profile_id,
      status: 'confirmed',
    });
  });

  it("names the same person's voice in a later recording, as a suggestion with its similarity", async () => {
    const second = await note(await transcribed(recordings.second));
    expect(second.speaker_names).toEqual({ 'Speaker 1': 'Ada' });
    const match = second.voice_matches['Speaker 1'];
    expect(match).toMatchObject({ profile_id: profile.profile_id, name: 'Ada', status: 'suggested' });
    expect(match?.similarity).toBeGreaterThanOrEqual(0.6);
  });

  it('does not name a different voice', async () => {
    const other = await note(await transcribed(recordings.other));
    expect(other.speaker_names).toEqual({});
    expect(other.voice_matches).toEqual({});
  });

  it('names only the known speaker of a conversation between the known voice and another', async () => {
    const noteId = await transcribed(recordings.together, 2);
    const together = await note(noteId);
    expect(Object.values(together.speaker_names)).toEqual(['Ada']);
    const [label] = Object.keys(together.voice_matches);
    const transcript = await owner<{ conversation_segments: { speaker_label: string; start_ms: number }[] }>(
      'GET',
      `/v1/notes/${noteId}/transcription`,
    );
    // The known voice opens the conversation.
    expect(transcript.body.conversation_segments[0]?.speaker_label).toBe(label);
  });

  it('confirming teaches the profile; rejecting removes the name it gave', async () => {
    const confirmed = await transcribed(recordings.second);
    const after = await owner<NoteBody>('POST', `/v1/notes/${confirmed}/voice-matches/Ada`, {
      body: { decision: 'confirm' },
    });
    expect(after.status).toBe(200);
    expect(after.body.voice_matches['Speaker 1']?.status).toBe('confirmed');
    const listed = await owner<{ profiles: ProfileBody[] }>('GET', '/v1/account/voice-profiles');
    expect(listed.body.profiles[0]?.taught).toBe(2);

    const rejected = await transcribed(recordings.second);
    const gone = await owner<NoteBody>('POST', `/v1/notes/${rejected}/voice-matches/Speaker%201`, {
      body: {
        decision: 'reject',
      },
    });
    expect(gone.body).toMatchObject({ speaker_names: {}, voice_matches: {} });
    const again = await owner('POST', `/v1/notes/${rejected}/voice-matches/Speaker%201`, {
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(404);
  });

  it("is the owner's alone: another account lists none, and cannot rename or delete it", async () => {
    expect((await stranger('GET', '/v1/account/voice-profiles')).body).toEqual({
      enabled: false,
      profiles: [],
    });
    const path = `/v1/account/voice-profiles/${profile.profile_id}`;
    expect((await stranger('PATCH', path, { body: { name: 'Mallory' } })).status).toBe(404);
    expect((await stranger('DELETE', path)).status).toBe(404);
    await stranger('PATCH', '/v1/account/voice-profiles', { body: { enabled: true } });
    // The stranger's own transcript of the same voice is not named after the owner's profile.
    const noteId = randomUUID();
    await submitAndUpload(stranger, noteId, recordings.second, 'audio/wav', 'Same voice', {
      speakers_expected: 1,
    });
    expect((await pollUntilDone(stranger, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
    expect((await stranger<NoteBody>('GET', `/v1/notes/${noteId}`)).body.voice_matches).toEqual({});
  });

  it('rejecting a match confirmed earlier removes the name too; keeping a suggested speaker under another name renames them', async () => {
    const noteId = await transcribed(recordings.second);
    await owner('POST', `/v1/notes/${noteId}/voice-matches/Speaker%201`, { body: { decision: 'confirm' } });
    const rejected = await owner<NoteBody>('POST', `/v1/notes/${noteId}/voice-matches/Ada`, {
      body: { decision: 'reject' },
    });
    expect(rejected.body).toMatchObject({ speaker_names: {}, voice_matches: {} });

    const suggested = await transcribed(recordings.second);
    expect((await note(suggested)).speaker_names).toEqual({ 'Speaker 1': 'Ada' });
    const kept = await owner<ProfileBody>('POST', '/v1/account/voice-profiles', {
      body: { note_id: suggested, speaker: 'Speaker 1', name: 'Carol' },
    });
    expect(kept.status).toBe(201);
    expect(await note(suggested)).toMatchObject({
      speaker_names: { 'Speaker 1': 'Carol' },
      voice_matches: {
        'Speaker 1': { profile_id: kept.body.profile_id, name: 'Carol', status: 'confirmed' },
      },
    });
    expect((await owner('DELETE', `/v1/account/voice-profiles/${kept.body.profile_id}`)).status).toBe(204);
  });

  it('refuses a profile named like a speaker label, and deleting a transcript takes its suggestions', async () => {
    const labelled = await owner('POST', '/v1/account/voice-profiles', {
      body: { note_id: firstNote, speaker: 'Speaker 1', name: 'Speaker 2' },
    });
    expect(labelled.status).toBe(400);
    expect(String(labelled.body.detail)).toMatch(/must not be a speaker label/);

    const noteId = await transcribed(recordings.second);
    expect((await note(noteId)).voice_matches['Speaker 1']?.status).toBe('suggested');
    expect((await owner('DELETE', `/v1/notes/${noteId}/transcription`)).status).toBe(204);
    expect(await note(noteId)).toMatchObject({ speaker_names: {}, voice_matches: {} });
  });

  it('renames a profile, and deleting it stops it naming anyone', async () => {
    const path = `/v1/account/voice-profiles/${profile.profile_id}`;
    const renamed = await owner<ProfileBody>('PATCH', path, { body: { name: 'Ada L.' } });
    expect(renamed.body.name).toBe('Ada L.');
    const named = await note(await transcribed(recordings.second));
    expect(named.speaker_names).toEqual({ 'Speaker 1': 'Ada L.' });
    expect((await owner('DELETE', path)).status).toBe(204);
    expect((await owner('DELETE', path)).status).toBe(404);
    const unnamed = await note(await transcribed(recordings.second));
    expect(unnamed).toMatchObject({ speaker_names: {}, voice_matches: {} });
  });

  it('turning profiles off deletes every profile, and they cannot be made while off', async () => {
    const made = await owner<ProfileBody>('POST', '/v1/account/voice-profiles', {
      body: {
        note_id: firstNote,
        speaker: 'Speaker 1',
        name: 'Ada',
      },
    });
    expect(made.status).toBe(201);
    const off = await owner('PATCH', '/v1/account/voice-profiles', { body: { enabled: false } });
    expect(off.body).toEqual({ enabled: false, profiles: [] });
    const still = await note(await transcribed(recordings.second));
    expect(still.voice_matches).toEqual({});
  });

  it('refuses a profile from a transcript whose speakers were told apart by voice statistics', async () => {
    const plain = await startService();
    try {
      const api = client(plain.baseUrl, plain.apiKey);
      await api('PATCH', '/v1/account/voice-profiles', { body: { enabled: true } });
      const noteId = randomUUID();
      await submitAndUpload(api, noteId, recordings.first, 'audio/wav', 'Statistics');
      expect((await pollUntilDone(api, `/v1/notes/${noteId}/transcription`)).final.status).toBe(200);
      const refused = await api('POST', '/v1/account/voice-profiles', {
        body: { note_id: noteId, speaker: 'Speaker 1', name: 'Ada' },
      });
      expect(refused.status).toBe(409);
      expect(String(refused.body.detail)).toMatch(/told apart by voice-statistics, not by a voice model/);
    } finally {
      await plain.stop();
    }
  });
});
