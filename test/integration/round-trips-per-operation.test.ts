import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsCallCounts, awsCallCounts, awsCallsBetween } from '../../src/adapters/aws-call-count.ts';
import { runArtifact } from '../../src/domain/artifact-worker.ts';
import { runInsights } from '../../src/domain/insights-worker.ts';
import { syncNoteIndex } from '../../src/domain/note-index.ts';
import { objectKeys } from '../../src/domain/object-keys.ts';
import { apiRoutes, type OperationId } from '../../src/routes.ts';
import { getGenerationServices } from '../../src/wiring/generation-services.ts';
import { getServices } from '../../src/wiring/services.ts';
import type { ApiResponse } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';
import { type Calls, roundTrips, roundTripTable } from '../support/round-trips.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';

/*
 * The workers are off: the only AWS requests this process sends while a request is served are that
 * request's. The work a request queues is then done here, between measured requests, by calling the
 * worker's own code, so the next operations see a note with Insights and an artifact.
 */
let service: InProcessService;
let accountId: string;

const TEXT =
  'The budget review moved to Thursday. Alice will send the revised budget to the finance team before the review. ' +
  'Bob asked whether the marketing plan needs a second review. We agreed to ship the release on Friday.';

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  // The first request of a key in a process looks the key up; every row below is a later request.
  accountId = String((await service.api('GET', '/v1/account')).body.account_id);
});
afterAll(() => service?.stop());

/** A transcribed note with its uploaded recording, indexed for search, as the workers leave one. */
async function processedNote(title: string): Promise<string> {
  const services = getServices();
  const noteId = randomUUID();
  // Told apart by a voice model, so that a voice profile can be made from its speaker.
  await storeTranscribedNote(services, accountId, {
    id: noteId,
    title,
    text: TEXT,
    speakers_by: 'voice-model:round-trips',
  });
  // The voices the local diarizer keeps beside a transcript (findSimilarSegments reads them).
  await services.blobs.putJson(objectKeys.voices(accountId, noteId), {
    voices: [{ start_ms: 0, end_ms: 3_600_000, vector: [1, 0] }],
  });
  const recording = join(service.dataDir, `${noteId}.wav`);
  await writeFile(recording, Buffer.alloc(4096));
  await services.blobs.putFile(objectKeys.audio(accountId, noteId), recording, 'audio/wav');
  await services.notes.setAudio(
    accountId,
    noteId,
    { content_type: 'audio/wav', size_bytes: 4096, uploaded_at: Date.now() },
    Date.now(),
  );
  await syncNoteIndex(services, accountId, noteId);
  return noteId;
}

describe('round trips per operation', () => {
  it('each REST operation sends exactly the DynamoDB, S3 and SQS requests of the table in test/support/round-trips.ts', async () => {
    const measured: Partial<Record<OperationId, Calls>> = {};
    const commands: Partial<Record<OperationId, AwsCallCounts['commands']>> = {};
    /** Sends one request of `operation` and records the AWS requests made while it was served. */
    async function call<T = Record<string, unknown>>(
      operation: OperationId,
      path: string,
      options: Parameters<typeof service.api>[2] = {},
    ): Promise<ApiResponse<T>> {
      const before = awsCallCounts();
      const response = await service.api<T>(apiRoutes[operation].method, path, options);
      const sent = awsCallsBetween(before, awsCallCounts());
      expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      measured[operation] = { dynamodb: sent.dynamodb, s3: sent.s3, sqs: sent.sqs };
      commands[operation] = sent.commands;
      return response;
    }

    const noteId = await processedNote('Budget review');
    await processedNote('Release planning');
    await processedNote('Marketing plan');
    const note = `/v1/notes/${noteId}`;

    const collection = await call('createCollection', '/v1/collections', { body: { name: 'Planning' } });
    const collectionId = String(collection.body.collection_id);
    await call('listCollections', '/v1/collections');
    await call('updateCollection', `/v1/collections/${collectionId}`, { body: { name: 'Plans' } });
    await call('addNoteToCollection', `/v1/collections/${collectionId}/notes`, { body: { note_id: noteId } });

    await call('generateInsights', `${note}/insights`, { body: {} });
    expect(await runInsights(getGenerationServices(), { accountId, noteId })).toBe('completed');
    await call('getInsights', `${note}/insights`);
    await call('generateNoteArtifact', `${note}/artifacts/epiphany`, { body: { language: 'en' } });
    const artifactTask = { accountId, noteId, kind: 'epiphany', language: 'en' } as const;
    expect(await runArtifact(getGenerationServices(), artifactTask)).toBe('completed');
    await call('getNoteArtifact', `${note}/artifacts/epiphany`);

    await call('getCurrentAccount', '/v1/account');
    await call('listNotes', '/v1/notes');
    await call('getNote', note);
    await call('updateNote', note, { body: { title: 'Budget review, Thursday' } });
    const transcription = await call('getTranscription', `${note}/transcription`);
    const edited = await call('editTranscription', `${note}/transcription/edits`, {
      body: { edits: [{ op: 'replace_text', segment: 0, text: 'The budget review moved to Friday.' }] },
      headers: { 'if-match': String(transcription.headers.get('etag')) },
    });
    await call('undoTranscriptionEdit', `${note}/transcription/undo`, {
      body: { to: 'previous' },
      headers: { 'if-match': String(edited.headers.get('etag')) },
    });
    await call('findSimilarSegments', `${note}/transcription/similar-segments`, {
      body: { speaker: 'Speaker 1' },
    });
    await call('updateVoiceProfileSettings', '/v1/account/voice-profiles', { body: { enabled: true } });
    const profile = await call('createVoiceProfile', '/v1/account/voice-profiles', {
      body: { note_id: noteId, speaker: 'Speaker 1', name: 'Dana' },
    });
    const profilePath = `/v1/account/voice-profiles/${String(profile.body.profile_id)}`;
    await call('listVoiceProfiles', '/v1/account/voice-profiles');
    await call('updateVoiceProfile', profilePath, { body: { name: 'Dana R.' } });
    await call('reviewVoiceMatch', `${note}/voice-matches/Speaker%201`, { body: { decision: 'reject' } });
    await call('deleteVoiceProfile', profilePath);
    await call('getNoteAudio', `${note}/audio`);
    await call('searchNotes', '/v1/search?q=budget%20review');
    await call('askWorkspace', '/v1/ask', { body: { question: 'When is the budget review?' } });

    await call('listApiKeys', '/v1/account/keys');
    const created = await call('createApiKey', '/v1/account/keys', { body: { name: 'Laptop' } });
    await call('revokeApiKey', `/v1/account/keys/${String(created.body.key_id)}`);
    // Two web app sessions of the account's key: one ended by ID, then the other with the rest.
    for (let tab = 0; tab < 2; tab++) {
      await accessTokenFor({
        baseUrl: service.runtime.apiUrl,
        apiKey: (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim(),
        resource: `${service.runtime.apiUrl}/v1`,
        client: { clientId: 'notes-web', redirectUri: `${service.runtime.apiUrl}/app/callback` },
      });
    }
    const sessions = await call<{ sessions: Array<{ session_id: string }> }>(
      'listSessions',
      '/v1/account/sessions',
    );
    await call('endSession', `/v1/account/sessions/${sessions.body.sessions[0]?.session_id}`);
    await call('endOtherSessions', '/v1/account/sessions');
    await call('submitTranscription', `/v1/notes/${randomUUID()}/transcription`, {
      body: { title: 'Standup', content_type: 'audio/wav', size_bytes: 4096 },
    });

    await call('removeNoteFromCollection', `/v1/collections/${collectionId}/notes/${noteId}`);
    await call('deleteCollection', `/v1/collections/${collectionId}`);
    await call('deleteTranscription', `${note}/transcription`);
    await call('deleteNote', note);

    const expected = Object.fromEntries(Object.entries(roundTrips).map(([op, { after }]) => [op, after]));
    // On failure the message names the commands each operation sent.
    expect(measured, JSON.stringify(commands, null, 1)).toEqual(expected);
  });

  it('docs/benchmarks.md shows the table of test/support/round-trips.ts', async () => {
    const docs = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'benchmarks.md'), 'utf8');
    expect(docs).toContain(roundTripTable());
  });
});
