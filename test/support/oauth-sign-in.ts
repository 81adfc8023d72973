import { createHash, randomBytes } from 'node:crypto';
import { consentDecision, hiddenFields } from './oauth-forms.ts';

/**
 * A real access token for the local runtime's /mcp, obtained through the whole OAuth flow over HTTP
 * as a public client and its user's browser do it: dynamic registration, authorize with PKCE, the
 * local sign-in page (the account's API key), the consent page (Allow), the code exchange.
 */
export interface SignedIn {
  accessToken: string;
  scope: string;
  clientId: string;
}

/** A loopback redirect URI where nothing needs to listen: the code is read from the redirect. */
const REDIRECT_URI = 'http://127.0.0.1:53683/callback';

export async function accessTokenFor(
  baseUrl: string,
  apiKey: string,
  options: { scope?: string; clientName?: string } = {},
): Promise<SignedIn> {
  const registered = await call(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: options.clientName ?? 'Notes test client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL(`${baseUrl}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${baseUrl}/mcp`,
    state,
    ...(options.scope ? { scope: options.scope } : {}),
  }).toString();

  const signInPage = await call(authorize.href);
  const consentPage = await submit(
    baseUrl,
    new URLSearchParams({ ...hiddenFields(await signInPage.text()), api_key: apiKey, action: 'sign_in' }),
  );
  const decision = await submit(baseUrl, consentDecision(await consentPage.text(), 'approve'), 303);
  const back = new URL(decision.headers.get('location') ?? '');
  if (back.searchParams.get('state') !== state || !back.searchParams.get('code')) {
    throw new Error(`The authorization did not come back with a code: ${back.href}`);
  }

  const tokens = await call(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${baseUrl}/mcp`,
    }),
  });
  const { access_token: accessToken, scope } = (await tokens.json()) as {
    access_token: string;
    scope: string;
  };
  return { accessToken, scope, clientId };
}

/** Posts a form to /oauth/authorize as the browser does (the redirect it answers is read, not followed). */
function submit(baseUrl: string, body: URLSearchParams, expected = 200): Promise<Response> {
  return call(
    `${baseUrl}/oauth/authorize`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    },
    expected,
  );
}

async function call(url: string, init: RequestInit = {}, expected?: number): Promise<Response> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const ok = expected === undefined ? response.ok : response.status === expected;
  if (!ok) {
    throw new Error(
      `${init.method ?? 'GET'} ${new URL(url).pathname} answered ${response.status}: ${await response.text()}`,
    );
  }
  return response;
}
