import { createHash, randomBytes } from 'node:crypto';
import { consentDecision, hiddenFields } from './oauth-forms.ts';

export interface OAuthFlowOptions {
  /** Where the client reaches the service, e.g. `http://localhost:PORT` (the issuer it talks to). */
  baseUrl: string;
  /** The account's API key: what the user types on the local sign-in page. */
  apiKey: string;
  /** RFC 8707 `resource`; default `<baseUrl>/mcp`. */
  resource?: string;
  scope?: string;
  /** The registered client's name (shown on the consent page). */
  clientName?: string;
  /** A client the server already knows (the web app's `notes-web`): no registration. */
  client?: { clientId: string; redirectUri: string };
  /** Scopes to tick on the consent page beyond those it ticks by default. */
  tick?: string[];
  /** Where the code is exchanged; default `baseUrl` (another issuer refuses it). */
  exchangeAt?: string;
}

export interface FlowTokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  client_id: string;
}

/**
 * An authorization request with PKCE (S256) at `baseUrl`: its URL, and the verifier its code must be
 * exchanged with.
 */
export function authorizationRequest(request: {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  state: string;
  scope?: string;
}): { url: string; verifier: string } {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: request.resource,
    state: request.state,
    ...(request.scope ? { scope: request.scope } : {}),
  });
  return { url: `${request.baseUrl}/oauth/authorize?${query}`, verifier };
}

/**
 * A real access token from the local runtime's authorization server, the way an MCP client and its
 * user get one: register (RFC 7591), authorize with PKCE, sign in with the API key, approve on the
 * consent page (ticked boxes as the page has them), exchange the code. Throws, naming the step, on
 * any unexpected answer.
 */
export async function accessTokenFor(options: OAuthFlowOptions): Promise<FlowTokens> {
  const { baseUrl, apiKey } = options;
  const resource = options.resource ?? `${baseUrl}/mcp`;
  const redirectUri = options.client?.redirectUri ?? 'http://127.0.0.1:53682/callback';
  const clientId = options.client?.clientId ?? (await register(baseUrl, redirectUri, options.clientName));

  const { url: authorizeUrl, verifier } = authorizationRequest({
    baseUrl,
    clientId,
    redirectUri,
    resource,
    state: 'flow-state',
    ...(options.scope ? { scope: options.scope } : {}),
  });
  const form = (fields: URLSearchParams) =>
    fetch(`${baseUrl}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
      redirect: 'manual',
    });
  const signInPage = await expectStatus('the sign-in page', 200, fetch(authorizeUrl, { redirect: 'manual' }));
  const signIn = new URLSearchParams({
    ...hiddenFields(await signInPage.text()),
    api_key: apiKey,
    action: 'sign_in',
  });
  const consentPage = await expectStatus('the consent page', 200, form(signIn));
  const decision = await expectStatus(
    'the approval',
    303,
    form(consentDecision(await consentPage.text(), 'approve', { tick: options.tick ?? [] })),
  );
  const back = new URL(decision.headers.get('location') ?? '');
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`The approval redirected without a code: ${back.search}`);

  const tokens = await expectStatus(
    'the code exchange',
    200,
    fetch(`${options.exchangeAt ?? baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      }),
    }),
  );
  return { ...((await tokens.json()) as Omit<FlowTokens, 'client_id'>), client_id: clientId };
}

async function register(baseUrl: string, redirectUri: string, clientName?: string): Promise<string> {
  const registration = await expectStatus(
    'registration',
    201,
    fetch(`${baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: clientName ?? 'OAuth flow test helper',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      }),
    }),
  );
  return ((await registration.json()) as { client_id: string }).client_id;
}

async function expectStatus(step: string, status: number, pending: Promise<Response>): Promise<Response> {
  const response = await pending;
  if (response.status !== status) {
    throw new Error(
      `${step}: expected ${status}, got ${response.status} ${response.headers.get('location') ?? (await response.text()).slice(0, 300)}`,
    );
  }
  return response;
}
