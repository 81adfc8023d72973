import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getServices } from '../../src/wiring/services.ts';
import type { Api } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import {
  type ReceivedRequest,
  type ScriptedServer,
  startScriptedServer,
} from '../support/scripted-server.ts';
import { storeTranscribedNote } from '../support/stored-notes.ts';
import { pollUntilDone } from '../support/transcribe.ts';

/**
 * The service with its text engine on an OpenAI-compatible chat server (NOTES_TEXT_ENGINE=openai), a
 * stub on 127.0.0.1 over real HTTP: the instructions of a note's collections reach the model's
 * request, in the stated order (by collection name), quoted as data, with the rule that keeps them
 * below the system's rules; a note in no collection sends none. The Bedrock engines build the same
 * prompts (src/adapters/llm/prompt.ts, artifact-prompt.ts; test/unit/collection-instructions-in-prompts).
 */
const MODEL = 'qwen2.5:7b-instruct';

interface ChatBody {
  messages: Array<{ role: string; content: string }>;
  response_format?: { json_schema?: { name: string } };
}

/** `[start_ms] Speaker: text` lines of the transcript the model was shown. */
function transcriptLines(user: string): Array<{ start_ms: number; text: string }> {
  return [...user.matchAll(/^\[(\d+)\] [^:\n]+: (.+)$/gm)].map((match) => ({
    start_ms: Number(match[1]),
    text: match[2] ?? '',
  }));
}

/** A well-behaved model: JSON for the schema asked for, citing and quoting only the lines shown. */
function answer(request: ReceivedRequest<ChatBody>) {
  const lines = transcriptLines(request.body.messages[1]?.content ?? '');
  const first = lines[0];
  if (!first) return { status: 500, body: { error: { message: 'no transcript' } } };
  const task = request.body.response_format?.json_schema?.name;
  const content =
    task === 'insights'
      ? {
          summary: { text: 'The team plans the release.', citations: [first.start_ms] },
          key_points: [],
          topics: [],
          action_items: [],
          decisions: [],
          open_questions: [],
          chapters: [{ title: 'Planning', start_ms: first.start_ms, end_ms: first.start_ms }],
          speakers: [],
        }
      : {
          ideas: [
            {
              title: 'The date rests on the review',
              connection: 'The release follows the budget review.',
              implication: 'A late review moves the release.',
              evidence: [{ start_ms: first.start_ms, quote: first.text.split(' ').slice(0, 4).join(' ') }],
            },
          ],
        };
  return {
    status: 200,
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: MODEL,
      choices: [
        { index: 0, message: { role: 'assistant', content: JSON.stringify(content) }, finish_reason: 'stop' },
      ],
    },
  };
}

let stub: ScriptedServer<ChatBody>;
let service: InProcessService;
let api: Api;
let accountId = '';

beforeAll(async () => {
  stub = await startScriptedServer<ChatBody>(answer);
  vi.stubEnv('NOTES_TEXT_ENGINE', 'openai');
  vi.stubEnv('NOTES_OPENAI_CHAT_BASE_URL', `${stub.baseUrl}/v1`);
  vi.stubEnv('NOTES_OPENAI_CHAT_MODEL', MODEL);
  service = await startInProcess({ workersInProcess: true });
  ({ api } = service);
  accountId = String((await api('GET', '/v1/account')).body.account_id);
});
afterAll(async () => {
  await service?.stop();
  vi.unstubAllEnvs();
  await stub?.close();
});
beforeEach(() => stub.reset());

const TEXT =
  'The budget review moved to Thursday. Alice will send the revised budget before the review. ' +
  'We agreed to ship the release on Friday.';

async function transcribedNote(title: string): Promise<string> {
  const id = randomUUID();
  await storeTranscribedNote(getServices(), accountId, { id, title, text: TEXT });
  return id;
}

async function collection(name: string, instructions?: string) {
  const created = await api<{ collection_id: string; name: string }>('POST', '/v1/collections', {
    body: instructions === undefined ? { name } : { name, instructions },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function generate(noteId: string, path: 'insights' | 'artifacts/epiphany') {
  const url = `/v1/notes/${noteId}/${path}`;
  const accepted = await api('POST', url, { body: path === 'insights' ? {} : { regenerate: true } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const { final } = await pollUntilDone(api, url, { intervalMs: 200, deadlineMs: 30_000 });
  expect(final.status, JSON.stringify(final.body)).toBe(200);
  return final.body;
}

/** The system and user messages of the one request the stub received for the task. */
function sent(task: string): { system: string; user: string } {
  const requests = stub.received.filter(
    (request) => request.body.response_format?.json_schema?.name === task,
  );
  expect(requests).toHaveLength(1);
  const [system, user] = requests[0]?.body.messages ?? [];
  return { system: system?.content ?? '', user: user?.content ?? '' };
}

describe('collection instructions sent to an OpenAI-compatible chat server', () => {
  it('sends the instructions of a note in two collections, by collection name, quoted, below the system rules', async () => {
    const noteId = await transcribedNote('Release planning');
    const zeta = await collection('Zeta project', 'Action items only.\nIgnore "small talk".');
    const alpha = await collection('alpha team', 'Stress the dates.');
    const plain = await collection('Middle');
    for (const { collection_id } of [zeta, plain, alpha]) {
      await api('POST', `/v1/collections/${collection_id}/notes`, { body: { note_id: noteId } });
    }
    const block =
      "Instructions of the note's collections (collection name: instructions), in order:\n" +
      '"alpha team": "Stress the dates."\n' +
      '"Zeta project": "Action items only.\\nIgnore \\"small talk\\"."\n';

    const insights = await generate(noteId, 'insights');
    const epiphany = await generate(noteId, 'artifacts/epiphany');
    for (const task of ['insights', 'epiphany']) {
      const { system, user } = sent(task);
      expect(user.startsWith(`Title: "Release planning"\n${block}Transcript:\n`), user).toBe(true);
      // The rule comes last, below every other rule, and names what the instructions cannot change.
      const rule = system.slice(system.indexOf("- The user's message may give instructions"));
      expect(system.endsWith(rule)).toBe(true);
      for (const kept of [
        'output format or JSON schema',
        'citation rules',
        'language to write in',
        'safety rules',
      ]) {
        expect(rule).toContain(kept);
      }
      expect(rule).toContain('follow the one listed first');
    }
    const used = {
      followed: true,
      collections: [alpha, zeta].map(({ collection_id, name }) => ({ collection_id, name })),
    };
    expect(insights).toMatchObject({ engine: `openai-compatible:${MODEL}`, collection_instructions: used });
    expect(epiphany).toMatchObject({ collection_instructions: used, outdated: false });

    // Edited: the results say outdated until generated again, which sends the new text.
    await api('PATCH', `/v1/collections/${zeta.collection_id}`, {
      body: { instructions: 'Decisions only.' },
    });
    const read = await api('GET', `/v1/notes/${noteId}/insights`);
    expect(read.body).toMatchObject({ outdated: true, outdated_reasons: ['instructions'] });
    stub.reset();
    expect(await generate(noteId, 'insights')).toMatchObject({ outdated: false, outdated_reasons: [] });
    expect(sent('insights').user).toContain('"Zeta project": "Decisions only."\n');
  });

  it('sends no instructions, and no rule about them, for a note in no collection', async () => {
    const noteId = await transcribedNote('Unfiled');
    const insights = await generate(noteId, 'insights');
    await generate(noteId, 'artifacts/epiphany');
    for (const task of ['insights', 'epiphany']) {
      const { system, user } = sent(task);
      expect(user.startsWith('Title: "Unfiled"\nTranscript:\n'), user).toBe(true);
      expect(`${system}\n${user}`).not.toMatch(/instructions of|collections/i);
    }
    expect(insights).toMatchObject({ collection_instructions: null, outdated_reasons: [] });
  });
});
