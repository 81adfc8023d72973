/**
 * What a one-word correction and a rename of a long note cost the search index: DynamoDB calls made
 * by the index and the request's time over HTTP, for a 15,000-word transcript (2,500 distinct
 * words). Next to it, in the same run, getNote (the floor of a request). The index is given a
 * counting DynamoDB client in place of the runtime's, so every call it makes is counted.
 * `npm run bench -- correction-index`, or `npx tsx bench/correction-index.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { round, storeTranscribedNote } from './ask.ts';
import { startInProcessRuntime } from './in-process.ts';

const WORDS = 15_000;
const DISTINCT = 2_500;
const RUNS = 5;

export interface CorrectionIndexRow {
  name: string;
  /** DynamoDB calls made by the search index during one request (mean over the runs). */
  index_calls: number;
  /** Milliseconds per request (mean over the runs). */
  ms: number;
}

export async function correctionIndexBench(): Promise<CorrectionIndexRow[]> {
  const runtime = await startInProcessRuntime('correction-index');
  const { loadConfig } = await import('../src/config.ts');
  const { createDocumentClient } = await import('../src/adapters/dynamodb/client.ts');
  const { configuredAwsClientConfig } = await import('../src/adapters/aws-client-config.ts');
  const { DynamoSearchIndex } = await import('../src/adapters/dynamodb/search-index.ts');
  const { syncNoteIndex } = await import('../src/domain/note-index.ts');
  try {
    const { apiKey, services } = runtime;
    const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${runtime.apiUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body ? JSON.stringify(body) : null,
      });
    const config = loadConfig();
    const counted = createDocumentClient(configuredAwsClientConfig(config, config.NOTES_DYNAMODB_ENDPOINT));
    let calls = 0;
    const counting = new Proxy(counted, {
      get: (target, property, receiver) =>
        property === 'send'
          ? (...args: Parameters<DynamoDBDocumentClient['send']>) => {
              calls++;
              return target.send(...args);
            }
          : Reflect.get(target, property, receiver),
    });
    services.search = new DynamoSearchIndex(counting, config.NOTES_TABLE_NAME);

    const account = String(
      ((await (await request('GET', '/v1/account')).json()) as { account_id: string }).account_id,
    );
    const noteId = randomUUID();
    const text = Array.from({ length: WORDS }, (_, i) => `w${(i % DISTINCT).toString(36)}x`).join(' ');
    await storeTranscribedNote(services, account, { id: noteId, title: 'Long meeting', text });
    await syncNoteIndex(services, account, noteId);

    const measure = async (name: string, once: (run: number) => Promise<Response>) => {
      let totalCalls = 0;
      let totalMs = 0;
      for (let run = 0; run < RUNS; run++) {
        calls = 0;
        const started = performance.now();
        const response = await once(run);
        totalMs += performance.now() - started;
        totalCalls += calls;
        if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
      }
      return { name, index_calls: round(totalCalls / RUNS), ms: round(totalMs / RUNS) };
    };
    return [
      await measure('baseline: getNote', () => request('GET', `/v1/notes/${noteId}`)),
      await measure('one-word correction (editTranscription replace_text)', async (run) => {
        const current = await request('GET', `/v1/notes/${noteId}/transcription`);
        const etag = current.headers.get('etag') ?? '';
        await current.arrayBuffer();
        return request(
          'POST',
          `/v1/notes/${noteId}/transcription/edits`,
          { edits: [{ op: 'replace_text', segment: 0, text: `corrected${run} w1x` }] },
          { 'if-match': etag },
        );
      }),
      await measure('rename (updateNote title)', (run) =>
        request('PATCH', `/v1/notes/${noteId}`, { title: `Long meeting ${run}` }),
      ),
    ];
  } finally {
    await runtime.stop();
  }
}

export function correctionIndexTable(rows: CorrectionIndexRow[]): string {
  return [
    `| ${WORDS.toLocaleString('en-US')}-word note | search-index DynamoDB calls | ms per request |`,
    '|---|---|---|',
    ...rows.map((row) => `| ${row.name} | ${row.index_calls} | ${row.ms} |`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log(correctionIndexTable(await correctionIndexBench()));
