/**
 * The deployed MCP endpoint and its authorization server, run: an MCP client signs a user in through
 * the OAuth bundles (register, authorize, the Cognito stand-in's managed login, callback, consent,
 * token), then calls tools on the `mcp` bundle with the token it got. A small HTTP front plays API
 * Gateway: each request becomes the HTTP API event of its route and is answered by that route's
 * bundle on Node 22. The same account's recording goes through the REST and worker bundles, so the
 * tools, Ask and the podcast (Bedrock and Polly over HTTP/2) have a processed note to work on; and
 * the ways AWS says no (a failed Transcribe job, a denied model) reach the user as the contract says.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, type LocalRoute } from '../../src/local/api-gateway-adapter.ts';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { publicRoutes } from '../../src/routes.ts';
import type { ConverseReply } from '../support/bedrock-stand-in.ts';
import { Browser } from '../support/browser.ts';
import { consentDecision } from '../support/oauth-forms.ts';
import { type OidcProviderStandIn, startOidcProviderStandIn } from '../support/oidc-provider-stand-in.ts';
import { httpApiEvent, sqsEvent, transcribeJobStateChange } from './support/aws-events.ts';
import { comparable } from './support/compare.ts';
import {
  converseToolCall,
  podcastLines,
  podcastToolUse,
  type TranscriptView,
} from './support/converse-replies.ts';
import {
  bodyOf,
  Deployment,
  EXAMPLE_PUBLIC_VALUES,
  expectCleanLogs,
  messageFor,
  rest,
} from './support/deployment.ts';

/** The stack's Cognito app client for the service: public, PKCE (lib/constructs/mcp-auth.ts). */
const COGNITO_CLIENT = { id: 'cognito-app-client-for-the-service' };
const REDIRECT = 'http://127.0.0.1:33418/callback';
const VERIFIER = 'a-code-verifier-for-the-deployed-sign-in-0123456789-abcdefghij';

let deployment: Deployment;
let provider: OidcProviderStandIn;
let front: Server;
let base: string;
/** The signed-in user's access and refresh tokens, and an API key an operator issued to the same account. */
let tokens: { access_token: string; refresh_token: string; scope: string };
let apiKey: string;
let accountId: string;
const notes = [randomUUID(), randomUUID()] as const;
const [noteC] = notes;
let transcript: TranscriptView;
const QUESTION = 'Who brings the draft and the budget numbers?';
const ANSWER = 'The speaker who answers Maria brings them on Friday.';

/** API Gateway, played locally: the public routes' requests answered by their bundles. */
function startFront(): Promise<string> {
  const routes: LocalRoute[] = Object.entries(publicRoutes).flatMap(([name, route]) =>
    route.endpoints.map((endpoint) => ({
      operationId: name,
      method: endpoint.method,
      path: endpoint.path,
      handler: async (event) => (await deployment.viaBundle(name, event)) as never,
    })),
  );
  front = createApiServer(routes, {});
  return new Promise((done) =>
    front.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(front.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  provider = await startOidcProviderStandIn();
  base = await startFront();
  deployment = await Deployment.start({
    ...EXAMPLE_PUBLIC_VALUES,
    NOTES_PUBLIC_URL: base,
    NOTES_OIDC_ISSUER: provider.url,
    NOTES_OIDC_CLIENT_ID: COGNITO_CLIENT.id,
  });
  provider.serve(COGNITO_CLIENT, `${base}/oauth/callback`);
}, 300_000);

afterAll(async () => {
  await new Promise<void>((done) => (front ? front.close(() => done()) : done()));
  front?.closeAllConnections();
  await provider?.close();
  await deployment?.stop();
});

async function postForm(path: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

async function mcpClient(accessToken: string): Promise<Client> {
  const client = new Client({ name: 'deployed-artifact-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

/** A tool's structured result, failing the test with the tool's own message when it failed. */
async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

/** The `mcp` request an MCP client sends for `method`, as API Gateway hands it to the function. */
function mcpEvent(method: string, params: Record<string, unknown>, accessToken: string) {
  const event = httpApiEvent({ method: 'POST', route: '/mcp', apiKey: accessToken, body: {} });
  return {
    ...event,
    headers: {
      ...event.headers,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  };
}

describe('an MCP client signs a user in through the deployed OAuth bundles', () => {
  it('registers, sends the user through Cognito managed login and consent, and gets tokens for the MCP resource', async () => {
    const registered = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Deployed test client', redirect_uris: [REDIRECT] }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };

    provider.nextUser = 'maria';
    const browser = new Browser(() => [base, provider.url]);
    const authorize = `${base}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
      scope: 'notes:read notes:process',
      state: 'deployed-state',
    })}`;
    const consent = await browser.open(authorize);
    expect(new URL(consent.url).pathname).toBe('/oauth/callback');
    expect(consent.response.status).toBe(200);
    const consentHtml = await consent.response.text();
    expect(consentHtml).toContain('maria@example.com');

    const approved = await browser.open(`${base}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: consentDecision(consentHtml, 'approve').toString(),
    });
    expect(approved.response.status).toBe(303);
    const back = new URL(approved.response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('deployed-state');

    const exchanged = await postForm('/oauth/token', {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: VERIFIER,
    });
    expect(exchanged.status).toBe(200);
    tokens = (await exchanged.json()) as typeof tokens;
    expect(tokens.scope).toBe('notes:read notes:process');
    // Signed by the KMS key (the stand-in's Sign), as the token function does on AWS.
    expect(
      deployment.kms.received.some((received) => received.headers['x-amz-target'] === 'TrentService.Sign'),
    ).toBe(true);
    refreshClientId = clientId;
  });

  it('the mcp bundle serves the tools to that token, acting for the account the sign-in made', async () => {
    const client = await mcpClient(tokens.access_token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('askWorkspace');
    const account = await callTool(client, 'getCurrentAccount');
    expect(account).toMatchObject({
      name: 'maria@example.com',
      access_token: { scopes: ['notes:read', 'notes:process'] },
    });
    accountId = String(account.account_id);
    await client.close();

    // The same request through the source handler gives the same answer.
    const event = mcpEvent('tools/list', {}, tokens.access_token);
    const bundled = await deployment.viaBundle('mcp', event);
    const source = await deployment.viaSource('mcp', event);
    expect(comparable(bundled, 'no note')).toEqual(comparable(source, 'no note'));
  });

  it('the mcp bundle refuses a request without a token, pointing at the protected-resource metadata', async () => {
    const refused = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('a REST bundle verifies an access token with the verifier chunk it reads on first use: the MCP token is refused there, as the source does', async () => {
    // The verifier (jose, and KMS GetPublicKey) is not in a REST handler's cold-start code; a
    // chunk missing from the asset would make this a 500 instead of the source's 401.
    const { bundled } = await deployment.bothWays(
      'getCurrentAccount',
      () => rest(tokens.access_token, 'getCurrentAccount', ''),
      ['mcp token', 'mcp token'],
    );
    expect(bundled).toMatchObject({ statusCode: 401 });
    expect(JSON.stringify(bundled)).toContain('invalid_token');
  });
});

let refreshClientId: string;

describe("the signed-in account's recording, worked on through the bundles", () => {
  it('is transcribed through the REST and worker bundles (the operator gave the account an API key)', async () => {
    const { getServices } = await import('../../src/wiring/services.ts');
    const { issueApiKey } = await import('../../src/domain/accounts.ts');
    const { accounts } = getServices();
    const account = await accounts.getAccount(accountId);
    if (!account) throw new Error(`the sign-in made no account ${accountId}`);
    apiKey = (await issueApiKey(accounts, account)).api_key;
    await deployment.submitAndUpload(apiKey, notes);
    await deployment.startTranscriptions(notes);
    await deployment.completeTranscriptions(notes);
    const client = await mcpClient(tokens.access_token);
    transcript = (await callTool(client, 'getTranscription', {
      note_id: noteC,
    })) as unknown as TranscriptView;
    await client.close();
    expect(JSON.stringify(transcript)).toContain('Maria');
  });

  it('askWorkspace over MCP answers from the note through Bedrock, with the supporting note ID', async () => {
    deployment.bedrock.replies.push(answerCitingFirstPassage(ANSWER));
    const client = await mcpClient(tokens.access_token);
    const answer = await callTool(client, 'askWorkspace', { question: QUESTION });
    await client.close();
    expect(deployment.bedrock.replies).toEqual([]);
    expect(answer.answer).toBe(ANSWER);
    expect(notes).toContain((answer.note_ids as string[])[0]);
  });

  it('askWorkspace over REST answers as the source does', async () => {
    deployment.bedrock.replies.push(answerCitingFirstPassage(ANSWER), answerCitingFirstPassage(ANSWER));
    const asked = await deployment.bothWays(
      'askWorkspace',
      () => rest(apiKey, 'askWorkspace', '', { question: QUESTION }),
      ['same question', 'same question'],
    );
    expect(deployment.bedrock.replies).toEqual([]);
    expect(asked.bundled).toMatchObject({ statusCode: 200 });
    expect(bodyOf(asked.bundled)).toMatchObject({ answer: ANSWER });
  });

  it('the podcast: Bedrock writes the script, Polly speaks each line over HTTP/2, the MP3 is stored and served', async () => {
    const more = { artifact_kind: 'podcast' };
    const queued = await deployment.bothWays(
      'generateNoteArtifact',
      (note) => rest(apiKey, 'generateNoteArtifact', note, {}, more),
      notes,
    );
    expect(queued.bundled).toMatchObject({ statusCode: 202 });
    const messages = await deployment.receiveMessages(deployment.emulators.queueUrls.generation, 2);
    deployment.bedrock.replies.push(podcastToolUse(transcript), podcastToolUse(transcript));
    const worker = await deployment.bothWays(
      'generationWorker',
      (note) => sqsEvent([messageFor(messages, note)], deployment.emulators.queueArns.generation),
      notes,
    );
    expect(worker.bundled).toEqual({ batchItemFailures: [] });
    expect(deployment.bedrock.replies).toEqual([]);
    // Three lines each (spoken in parallel), for the bundle's note and the source's.
    const spoken = deployment.polly.requests;
    expect(spoken.map((request) => request.Text).sort()).toEqual([...podcastLines, ...podcastLines].sort());
    for (const request of spoken) expect(request).toMatchObject({ Engine: 'neural', OutputFormat: 'mp3' });
    expect(new Set(deployment.polly.requests.map((request) => request.VoiceId)).size).toBe(2);

    const stored = await deployment.bothWays(
      'getNoteArtifact',
      (note) => rest(apiKey, 'getNoteArtifact', note, undefined, more),
      notes,
    );
    expect(stored.bundled).toMatchObject({ statusCode: 200 });
    const { content } = bodyOf<{ content: { audio: { url: string; duration_ms: number } } }>(stored.bundled);
    const audio = Buffer.from(await (await fetch(content.audio.url)).arrayBuffer());
    // An MPEG audio frame header: 11 sync bits.
    expect(audio[0]).toBe(0xff);
    expect((audio[1] ?? 0) & 0xe0).toBe(0xe0);
    expect(content.audio.duration_ms).toBeGreaterThan(1000);
  });
});

describe('what AWS refuses, through the bundles', () => {
  it('a FAILED Transcribe job ends the note as failed, with AWS’s reason', async () => {
    const failing = [randomUUID(), randomUUID()] as const;
    await deployment.submitAndUpload(apiKey, failing);
    await deployment.startTranscriptions(failing);
    const reason = "The media format that you specified doesn't match the detected media format.";
    const ended = await deployment.bothWays(
      'transcriptionCompleted',
      (note) =>
        transcribeJobStateChange(
          String(deployment.transcribeJobOf(note).TranscriptionJobName),
          'FAILED',
          reason,
        ),
      failing,
    );
    expect(ended.bundled).toBeNull();
    const failed = await deployment.bothWays(
      'getTranscription',
      (note) => rest(apiKey, 'getTranscription', note),
      failing,
    );
    expect(bodyOf(failed.bundled)).toMatchObject({ status: 'failed', detail: expect.any(String) });
  });

  it('a denied model: Ask answers 503 telling the operator what to fix, and a generation job fails with it', async () => {
    const denied: ConverseReply = {
      error: 'AccessDeniedException',
      status: 403,
      message: "You don't have access to the model with the specified model ID.",
    };
    deployment.bedrock.replies.push(denied, denied);
    const asked = await deployment.bothWays(
      'askWorkspace',
      () => rest(apiKey, 'askWorkspace', '', { question: QUESTION }),
      ['same question', 'same question'],
    );
    expect(deployment.bedrock.replies).toEqual([]);
    expect(asked.bundled).toMatchObject({ statusCode: 503 });
    expect(bodyOf(asked.bundled).detail).toMatch(/not configured correctly.*access to the model/i);

    const queued = await deployment.bothWays(
      'generateInsights',
      (note) => rest(apiKey, 'generateInsights', note, {}),
      notes,
    );
    expect(queued.bundled).toMatchObject({ statusCode: 202 });
    const messages = await deployment.receiveMessages(deployment.emulators.queueUrls.generation, 2);
    deployment.bedrock.replies.push(denied, denied);
    await deployment.bothWays(
      'generationWorker',
      (note) => sqsEvent([messageFor(messages, note)], deployment.emulators.queueArns.generation),
      notes,
    );
    const ended = await deployment.bothWays(
      'getInsights',
      (note) => rest(apiKey, 'getInsights', note),
      notes,
    );
    expect(bodyOf(ended.bundled)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/not configured correctly/i),
    });
  });
});

describe('the tokens after use', () => {
  it('a refresh through the token bundle gives a new access token; after revocation the refresh token is refused', async () => {
    const refreshed = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: refreshClientId,
    });
    expect(refreshed.status).toBe(200);
    const renewed = (await refreshed.json()) as typeof tokens;
    expect(renewed.scope).toBe('notes:read notes:process');
    const client = await mcpClient(renewed.access_token);
    expect(await callTool(client, 'getCurrentAccount')).toMatchObject({ account_id: accountId });
    await client.close();

    const revoked = await postForm('/oauth/revoke', {
      token: renewed.refresh_token,
      client_id: refreshClientId,
    });
    expect(revoked.status).toBe(200);
    const again = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: renewed.refresh_token,
      client_id: refreshClientId,
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('the bundles logged no token, API key or transcript text', () => {
    expectCleanLogs(deployment, [
      tokens.access_token,
      tokens.refresh_token,
      apiKey,
      'Maria',
      'budget numbers',
    ]);
  });
});

/**
 * Bedrock's `record_answer` call citing the first passage it was shown (the prompt labels passages
 * `[<note id> <start>-<end>]`), as a model grounded in the notes answers.
 */
function answerCitingFirstPassage(answer: string) {
  return (request: unknown): ConverseReply => {
    const shown = JSON.stringify((request as { messages: unknown }).messages);
    const [, noteId, start] = /\[([0-9a-f-]{36}) (\d+)-\d+\]/.exec(shown) ?? [];
    return converseToolCall('record_answer', {
      answer,
      citations: [{ note_id: noteId, start_ms: Number(start) }],
    });
  };
}
