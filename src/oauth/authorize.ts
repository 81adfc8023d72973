import { randomUUID } from 'node:crypto';
import type { McpScope } from '../domain/scopes.ts';
import { logger } from '../logging.ts';
import { acceptsRedirectUri } from './clients.ts';
import type { OAuthDeps } from './deps.ts';
import { AuthorizationPageError, OAuthError } from './errors.ts';
import { type ClientView, renderConsent, renderSignIn } from './pages.ts';
import { isS256Challenge } from './pkce.ts';
import { checkRedirectUri, redirectsAutomatically } from './redirect-uris.ts';
import { parseScopes, SUPPORTED_SCOPES, unionScopes, withinCeiling } from './scopes.ts';
import { hashSecret, newSecret, sameHash } from './secrets.ts';
import { endSignInAndItsGrants } from './sessions.ts';
import { lifetimes, servedResources } from './settings.ts';
import {
  type BrowserRequest,
  browserBinding,
  clearedSignInCookie,
  credentialLive,
  fromSameBrowser,
  hasSignInCookie,
  liveSignIn,
  signInLive,
  startSignInSession,
} from './sign-in-session.ts';
import type {
  GrantRecord,
  OAuthClient,
  PendingAuthorization,
  SignInCredential,
  SignInSessionRecord,
  StepUpShown,
} from './store.ts';
import { type KeySignIn, UpstreamSignInError } from './upstream.ts';

/**
 * What the browser gets: a redirect (to the client or the upstream provider) or one of our pages,
 * with the cookies to set (`Set-Cookie` values: the sign-in session's, the browser binding's).
 */
export type WebResult =
  | { kind: 'redirect'; location: string; cookies?: string[] }
  | { kind: 'page'; status: number; html: string; cookies?: string[] };

/** Who signed in to a pending request, and the most they may give. */
interface SignedIn {
  accountId: string;
  /** The most the signed-in credential may give: an API key's scopes; every scope upstream. */
  ceiling: readonly McpScope[];
  credential: SignInCredential;
  /** The browser's sign-in session this sign-in made or used, if any. */
  signInId: string | null;
  /** Signed in earlier in this browser (no key typed now): the page offers to sign out. */
  reused: boolean;
  /**
   * For the web app in a browser signed in earlier: what its grants through that sign-in already
   * allow of what is asked, kept without asking (empty for every other sign-in).
   */
  allowedBefore: McpScope[];
}

const MAX_STATE_LENGTH = 1024;

/**
 * GET /oauth/authorize. Problems with the client or its redirect URI are shown as a page (never
 * redirected: RFC 6749 section 4.1.2.1); every later problem goes back to the client as an error
 * redirect carrying `state` and `iss` (RFC 9207).
 */
export async function beginAuthorization(
  deps: OAuthDeps,
  query: URLSearchParams,
  browser: BrowserRequest,
): Promise<WebResult> {
  const clientId = single(query, 'client_id');
  if (!clientId) throw new AuthorizationPageError('Missing client', 'The request names no client_id.');
  let client: OAuthClient | null;
  try {
    client = await deps.clients.find(clientId, deps.settings.issuer);
  } catch (error) {
    if (error instanceof OAuthError)
      throw new AuthorizationPageError('Unknown application', error.description);
    throw error;
  }
  if (!client) {
    throw new AuthorizationPageError(
      'Unknown application',
      'This client_id is not registered here. The application should register again.',
    );
  }
  const redirectUri = single(query, 'redirect_uri');
  if (!redirectUri)
    throw new AuthorizationPageError('Missing redirect URI', 'The request names no redirect_uri.');
  if (!acceptsRedirectUri(client, redirectUri)) {
    throw new AuthorizationPageError(
      'Unregistered redirect URI',
      'The redirect_uri is not one the application registered, so the request cannot be answered.',
    );
  }

  let state: string | null = null;
  try {
    state = single(query, 'state') ?? null;
  } catch (error) {
    return earlyErrorRedirect(deps, redirectUri, null, error);
  }
  try {
    const request = validateRequest(deps, client, query, redirectUri, state);
    // OpenID Connect's prompt=login: the application wants the person to sign in again.
    const session = (single(query, 'prompt') ?? '').split(' ').includes('login')
      ? null
      : await liveSignIn(deps, browser);
    if (session) return await continueSignedIn(deps, client, request, session);
    return await startSignIn(deps, client, request, browser);
  } catch (error) {
    return earlyErrorRedirect(deps, redirectUri, state, error);
  }
}

/** POST /oauth/authorize: the sign-in form (local upstream), the consent decision, and signing out. */
export async function submitAuthorizationForm(
  deps: OAuthDeps,
  form: URLSearchParams,
  browser: BrowserRequest,
): Promise<WebResult> {
  const action = form.get('action');
  const requestId = form.get('request_id') ?? '';
  const csrf = form.get('csrf') ?? '';
  if (!requestId || !csrf) throw new AuthorizationPageError('Bad request', 'The form is incomplete.');
  switch (action) {
    case 'sign_in':
      return signInWithApiKey(
        deps,
        requestId,
        csrf,
        form.get('api_key') ?? '',
        form.has('remember'),
        browser,
      );
    case 'approve':
      return decide(deps, requestId, csrf, form.getAll('scope'));
    case 'deny':
      return decide(deps, requestId, csrf, null);
    case 'sign_out':
      return signOutAndStartAgain(deps, requestId, csrf, browser);
    default:
      throw new AuthorizationPageError('Bad request', 'Unknown form action.');
  }
}

/** GET /oauth/callback: the upstream provider returns the user here after signing in. */
export async function completeUpstreamSignIn(
  deps: OAuthDeps,
  query: URLSearchParams,
  rawQueryString: string,
  browser: BrowserRequest,
): Promise<WebResult> {
  const upstream = deps.upstream;
  if (upstream.kind !== 'redirect') {
    throw new AuthorizationPageError('Not found', 'This server signs users in with API keys.', 404);
  }
  const state = query.get('state') ?? '';
  const request = state ? await deps.store.getPendingAuthorization(state, deps.now()) : null;
  if (!request) throw expired();
  if (request.account_id !== null) {
    throw new AuthorizationPageError('Already signed in', 'This sign-in has already been completed.');
  }
  if (query.has('error')) {
    // Cancelled or refused at the provider: the client hears access_denied, nothing more.
    const taken = await deps.store.takePendingAuthorization(state, request.csrf_hash, false, deps.now());
    if (!taken) throw expired();
    return errorRedirect(
      deps,
      taken.redirect_uri,
      taken.state,
      new OAuthError('access_denied', 'The user did not complete sign-in'),
      issuerOf(deps, taken),
    );
  }
  let accountId: string;
  try {
    accountId = await upstream.finish(
      new URL(`${deps.settings.issuer}/oauth/callback?${rawQueryString}`),
      state,
      request.upstream ?? {},
    );
  } catch (error) {
    if (error instanceof UpstreamSignInError) {
      logger.warn('Upstream sign-in failed', { error: error.message });
      throw new AuthorizationPageError('Sign-in failed', 'The sign-in could not be completed. Try again.');
    }
    throw error;
  }
  // A person who signed in at the identity provider holds the whole account: every scope may be given.
  const credential: SignInCredential = {
    kind: 'identity_provider',
    issuer: deps.settings.upstream.kind === 'oidc' ? deps.settings.upstream.issuer : 'upstream',
  };
  const session = fromSameBrowser(issuerOf(deps, request), browser, request.browser_hash)
    ? await startSignInSession(deps, accountId, credential, SUPPORTED_SCOPES, browser)
    : null;
  const signedIn: SignedIn = {
    accountId,
    ceiling: SUPPORTED_SCOPES,
    credential,
    signInId: session?.record.sign_in_id ?? null,
    reused: false,
    allowedBefore: [],
  };
  return withCookies(await consentPage(deps, request, signedIn, null), session ? [session.cookie] : []);
}

interface ValidRequest {
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  resource: string;
  scopes: McpScope[];
}

function validateRequest(
  deps: OAuthDeps,
  client: OAuthClient,
  query: URLSearchParams,
  redirectUri: string,
  state: string | null,
): ValidRequest {
  if (state !== null && state.length > MAX_STATE_LENGTH) {
    throw new OAuthError('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);
  }
  const responseType = single(query, 'response_type');
  if (!responseType) throw new OAuthError('invalid_request', 'response_type is required (code)');
  if (responseType !== 'code') {
    throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported');
  }
  const method = single(query, 'code_challenge_method');
  if (method !== 'S256') {
    throw new OAuthError(
      'invalid_request',
      method
        ? `code_challenge_method ${method.slice(0, 20)} is not supported: use S256`
        : 'PKCE is required: send code_challenge with code_challenge_method=S256',
    );
  }
  const codeChallenge = single(query, 'code_challenge');
  if (!codeChallenge || !isS256Challenge(codeChallenge)) {
    throw new OAuthError(
      'invalid_request',
      'code_challenge must be a base64url SHA-256 value (43 characters)',
    );
  }
  // RFC 8707: the resource asked for must be ours: the MCP server or the REST API, at one of its public
  // URLs (locally both loopback names). Clients that omit it get tokens for the MCP server at this host.
  const served = servedResources(deps.settings.sites);
  const resources = [...new Set(query.getAll('resource'))];
  if (resources.length > 1 || resources.some((resource) => !served.includes(resource))) {
    throw new OAuthError('invalid_target', `Ask for one resource: ${served.join(' or ')}`);
  }
  const scopes = allowedScopes(client, single(query, 'scope'));
  return { redirectUri, state, codeChallenge, resource: resources[0] ?? deps.settings.resource, scopes };
}

/**
 * The scopes asked for; a request naming none gets the scope the client registered, else the
 * server's default. The registered scope is not a limit: the user approves each scope on consent.
 */
function allowedScopes(client: OAuthClient, scope: string | undefined): McpScope[] {
  if (scope === undefined || scope.trim() === '') return parseScopes(client.scope);
  return parseScopes(scope);
}

function newPendingRequest(deps: OAuthDeps, client: OAuthClient, valid: ValidRequest): PendingAuthorization {
  const now = deps.now();
  return {
    request_id: newSecret(),
    client_id: client.client_id,
    client_name: client.client_name,
    redirect_uri: valid.redirectUri,
    state: valid.state,
    code_challenge: valid.codeChallenge,
    resource: valid.resource,
    scopes: valid.scopes,
    csrf_hash: '',
    account_id: null,
    upstream: null,
    issuer: deps.settings.issuer,
    created_at: now,
    expires_at_s: Math.floor(now / 1000) + lifetimes.pendingRequest,
  };
}

/** The sign-in page (or the provider), for a browser that is not signed in. */
async function startSignIn(
  deps: OAuthDeps,
  client: OAuthClient,
  valid: ValidRequest,
  browser: BrowserRequest,
): Promise<WebResult> {
  const csrf = newSecret();
  const binding = browserBinding(deps.settings.issuer, browser);
  // A cookie of a session that has ended is removed, so the browser stops sending it.
  const cookies = [
    binding.cookie,
    ...(hasSignInCookie(deps.settings.issuer, browser) ? [clearedSignInCookie(deps.settings.issuer)] : []),
  ];
  const request: PendingAuthorization = {
    ...newPendingRequest(deps, client, valid),
    csrf_hash: hashSecret(csrf),
    browser_hash: binding.hash,
  };
  const requestId = request.request_id;
  if (deps.upstream.kind === 'api-key') {
    await deps.store.putPendingAuthorization(request);
    return page(
      200,
      renderSignIn({ client: clientView(client, valid.redirectUri), requestId, csrf }),
      cookies,
    );
  }
  // The request ID is the upstream `state`: it comes back at /oauth/callback.
  let started: { url: string; pending: Record<string, string> };
  try {
    started = await deps.upstream.begin(requestId);
  } catch (error) {
    if (!(error instanceof UpstreamSignInError)) throw error;
    logger.warn('Upstream sign-in unavailable', { error: error.message });
    throw new OAuthError('temporarily_unavailable', 'The sign-in service is unavailable; try again later');
  }
  const { url, pending } = started;
  await deps.store.putPendingAuthorization({ ...request, upstream: pending });
  return { kind: 'redirect', location: url, cookies };
}

/**
 * A browser whose sign-in session lives asks for no key: the application's own web app gets its code
 * at once when it asks for no more than this sign-in already allowed it (a new tab, a deep link);
 * anything else gets the consent page, which offers to sign out and use another key.
 */
async function continueSignedIn(
  deps: OAuthDeps,
  client: OAuthClient,
  valid: ValidRequest,
  session: SignInSessionRecord,
): Promise<WebResult> {
  const request = newPendingRequest(deps, client, valid);
  const allowed = client.source === 'first_party' ? await allowedThroughSignIn(deps, session, request) : [];
  if (client.source === 'first_party' && request.scopes.every((scope) => allowed.includes(scope))) {
    const bound = { ...request, account_id: session.account_id, credential: session.credential };
    return issueCode(deps, { ...bound, sign_in_id: session.sign_in_id }, request.scopes, null);
  }
  const signedIn: SignedIn = {
    accountId: session.account_id,
    ceiling: session.scopes,
    credential: session.credential,
    signInId: session.sign_in_id,
    reused: true,
    allowedBefore: withinCeiling(request.scopes, allowed),
  };
  await deps.store.putPendingAuthorization(request);
  return consentPage(deps, request, signedIn, null, client);
}

/**
 * What this browser's sign-in already allowed the client at this resource: the scopes of its live
 * grants made through the sign-in. The web app asks for no more in a new tab, so it gets no page.
 */
async function allowedThroughSignIn(
  deps: OAuthDeps,
  session: SignInSessionRecord,
  request: Pick<PendingAuthorization, 'client_id' | 'resource' | 'scopes'>,
): Promise<McpScope[]> {
  const { grants } = await deps.store.accountSessions(session.account_id);
  const now = deps.now();
  const allowed = unionScopes(
    [],
    grants
      .filter(
        (grant) =>
          grant.sign_in_id === session.sign_in_id &&
          grant.client_id === request.client_id &&
          grant.resource === request.resource &&
          grant.revoked_at === null &&
          grant.expires_at_s * 1000 > now,
      )
      .flatMap((grant) => grant.scopes),
  );
  return withinCeiling(allowed, session.scopes);
}

async function signInWithApiKey(
  deps: OAuthDeps,
  requestId: string,
  csrf: string,
  apiKey: string,
  remember: boolean,
  browser: BrowserRequest,
): Promise<WebResult> {
  const upstream = deps.upstream;
  if (upstream.kind !== 'api-key') {
    throw new AuthorizationPageError('Bad request', 'This server does not sign in with API keys.');
  }
  const request = await deps.store.getPendingAuthorization(requestId, deps.now());
  if (!request) throw expired();
  if (!sameHash(request.csrf_hash, hashSecret(csrf))) throw staleForm();
  const client = await findClient(deps, request);
  const key = apiKey.trim() ? await upstream.signIn(apiKey) : null;
  const refuse = (status: number, error: string) =>
    page(status, renderSignIn({ client: clientView(client, request.redirect_uri), requestId, csrf, error }));
  if (!key) return refuse(400, 'That API key was not accepted. Check it and try again.');
  const stepUp = await grantAwaitingStepUp(deps, key.accountId, request, key.scopes);
  if (!stepUp && withinCeiling(request.scopes, key.scopes).length === 0) {
    return refuse(403, keyTooNarrow(key, request.scopes));
  }
  const credential: SignInCredential = { kind: 'api_key', key_id: key.keyId, key_hash: key.keyHash };
  // Only the browser that opened this request is left signed in (see sign-in-session.ts).
  const session =
    remember && fromSameBrowser(issuerOf(deps, request), browser, request.browser_hash)
      ? await startSignInSession(deps, key.accountId, credential, key.scopes, browser)
      : null;
  const signedIn: SignedIn = {
    accountId: key.accountId,
    ceiling: key.scopes,
    credential,
    signInId: session?.record.sign_in_id ?? null,
    reused: false,
    allowedBefore: [],
  };
  return withCookies(
    await consentPage(deps, request, signedIn, request.csrf_hash, client, stepUp),
    session ? [session.cookie] : [],
  );
}

/**
 * Why a key cannot sign this request in: it holds none of the permissions asked for. A key gives at
 * most its own scopes, so the person needs a key that holds them (or the application may ask for less).
 */
function keyTooNarrow(signedIn: KeySignIn, asked: readonly McpScope[]): string {
  const holds = signedIn.scopes.length > 0 ? `only ${signedIn.scopes.join(', ')}` : 'no permission';
  return `That API key holds ${holds}, and the application asks for ${asked.join(', ')}: a sign-in can give no more than its key holds. Sign in with a key that holds what the application asks for.`;
}

/**
 * Binds the account to the request and shows the consent form, with a new CSRF token. The page
 * offers nothing beyond the signed-in credential's ceiling, and a step-up only to a credential that
 * holds everything the grant it widens holds.
 */
async function consentPage(
  deps: OAuthDeps,
  request: PendingAuthorization,
  signedIn: SignedIn,
  expectedCsrfHash: string | null,
  knownClient?: OAuthClient,
  knownStepUp?: GrantRecord | null,
): Promise<WebResult> {
  const csrf = newSecret();
  const stepUp =
    knownStepUp !== undefined
      ? knownStepUp
      : await grantAwaitingStepUp(deps, signedIn.accountId, request, signedIn.ceiling);
  const held = stepUp?.scopes ?? [];
  const client = knownClient ?? (await findClient(deps, request));
  // The web app's earlier permissions in this browser are kept, not asked for again.
  const allowedBefore = stepUp ? [] : signedIn.allowedBefore;
  const bound = await deps.store.bindAccount(
    request.request_id,
    {
      accountId: signedIn.accountId,
      csrfHash: hashSecret(csrf),
      expectedCsrfHash,
      stepUp: stepUp ? { grant_id: stepUp.grant_id, held } : null,
      ceiling: [...signedIn.ceiling],
      credential: signedIn.credential,
      signInId: signedIn.signInId,
      allowedBefore,
    },
    deps.now(),
  );
  if (!bound) throw staleForm();
  const account = await deps.accounts.getAccount(signedIn.accountId);
  const kept = unionScopes(held, allowedBefore);
  const beyondHeld = request.scopes.filter((scope) => !kept.includes(scope));
  return page(
    200,
    renderConsent({
      client: clientView(client, request.redirect_uri),
      account: { name: account?.name ?? signedIn.accountId, createdAt: account?.created_at ?? null },
      held: kept,
      offered: withinCeiling(beyondHeld, signedIn.ceiling),
      beyondKey: beyondHeld.filter((scope) => !signedIn.ceiling.includes(scope)),
      ticksRequested: client.source === 'first_party',
      signedInBefore: signedIn.reused,
      requestId: request.request_id,
      csrf,
    }),
  );
}

/**
 * The grant this request steps up: the account's live grant to the same client and resource on which
 * the MCP server recorded an insufficient_scope (the newest, if several). A client's first request, or
 * one not preceded by a refused call, has none and gets a grant of its own. So does a credential that
 * does not hold everything that grant holds: a step-up's code carries the grant's scopes, and a
 * narrowed key must not obtain them (issue 35).
 */
async function grantAwaitingStepUp(
  deps: OAuthDeps,
  accountId: string,
  request: PendingAuthorization,
  ceiling: readonly McpScope[],
): Promise<GrantRecord | null> {
  const grants = await deps.store.grantsAwaitingStepUp(accountId, request.client_id, deps.now());
  return (
    grants
      .filter(
        (grant) =>
          grant.resource === request.resource && grant.scopes.every((scope) => ceiling.includes(scope)),
      )
      .sort((a, b) => b.created_at - a.created_at)[0] ?? null
  );
}

/**
 * The consent decision. `approved` holds the ticked scopes (null for Deny). The user may approve less
 * than was asked; the code carries exactly what was approved. A step-up applies to the grant the page
 * showed (`request.step_up`): the code carries the scopes that grant holds plus the approved ones and
 * widens it when exchanged; Allow with nothing new ticked keeps what the client has (a code for the
 * held scopes, nothing added). Any decision ends the step-up, so the grant's refreshes work again;
 * Deny answers access_denied and leaves the grant as it was.
 */
async function decide(
  deps: OAuthDeps,
  requestId: string,
  csrf: string,
  approved: string[] | null,
): Promise<WebResult> {
  const now = deps.now();
  const request = await deps.store.takePendingAuthorization(
    requestId,
    hashSecret(csrf),
    approved !== null,
    now,
  );
  if (!request) {
    throw new AuthorizationPageError(
      'Request no longer valid',
      'This authorization request has expired, was already answered, or the form is out of date.',
    );
  }
  const accountId = request.account_id;
  if (accountId === null) return denied(deps, request, 'The user did not sign in');
  const shown = request.step_up ?? null;
  const held = shown?.held ?? [];
  const kept = unionScopes(held, request.allowed_before ?? []);
  // What the page offered: nothing the signed-in credential does not hold itself. A request bound
  // before sign-ins carried a bound offers nothing: the person starts again (it lives minutes).
  const offered = withinCeiling(
    request.scopes.filter((scope) => !kept.includes(scope)),
    request.ceiling ?? [],
  );
  const nowS = Math.floor(now / 1000);
  // The user decided: the grant refreshes again, and is not asked for the declined scopes for a while.
  const settle = (added: McpScope[]) =>
    shown
      ? deps.store.decideStepUp(
          accountId,
          shown.grant_id,
          offered.filter((scope) => !added.includes(scope)),
          nowS + lifetimes.stepUpMark,
        )
      : Promise.resolve();
  if (approved === null) {
    await settle([]);
    return denied(deps, request, 'The user denied the request');
  }
  const added = approvedScopes(approved, offered);
  const scopes = unionScopes(kept, added);
  if (!shown && scopes.length === 0) {
    return denied(deps, request, 'The user approved none of the requested scopes');
  }
  await requireLiveSignIn(deps, request, now);
  if (shown) {
    await requireUnchangedGrant(deps, accountId, shown, now);
    // Refreshes work again whether or not the code is exchanged.
    await settle(added);
  }
  return issueCode(deps, { ...request, account_id: accountId }, scopes, shown);
}

/**
 * The credential that signed this request in must still work when the person decides: a key revoked
 * (or a browser signed out) while the consent page was open gives no code.
 */
async function requireLiveSignIn(deps: OAuthDeps, request: PendingAuthorization, now: number): Promise<void> {
  const accountId = request.account_id ?? '';
  const signIn = request.sign_in_id ? await deps.store.getSignIn(accountId, request.sign_in_id) : null;
  const live =
    (await credentialLive(deps, accountId, request.credential)) &&
    (!request.sign_in_id || (signIn !== null && signInLive(signIn, now)));
  if (!live) {
    throw new AuthorizationPageError(
      'Signed out',
      'The API key you signed in with was revoked, or this browser was signed out, while this page was open: nothing was given. Start again from the application.',
      403,
    );
  }
}

/**
 * Issues the authorization code for a decided (or, for the web app within its sign-in, already
 * allowed) request: a new grant, recording what signed in, or for a step-up the grant it widens.
 */
async function issueCode(
  deps: OAuthDeps,
  request: PendingAuthorization & { account_id: string },
  scopes: McpScope[],
  shown: StepUpShown | null,
): Promise<WebResult> {
  const now = deps.now();
  const nowS = Math.floor(now / 1000);
  const accountId = request.account_id;
  let grantId: string;
  if (shown) {
    grantId = shown.grant_id;
  } else {
    grantId = randomUUID();
    await deps.store.putGrant({
      grant_id: grantId,
      account_id: accountId,
      client_id: request.client_id,
      client_name: request.client_name ?? null,
      scopes,
      resource: request.resource,
      created_at: now,
      expires_at_s: nowS + lifetimes.grantAbsolute,
      revoked_at: null,
      issuer: issuerOf(deps, request),
      ...(request.credential ? { credential: request.credential } : {}),
      sign_in_id: request.sign_in_id ?? null,
    });
  }
  const code = newSecret();
  await deps.store.putCode({
    code_hash: hashSecret(code),
    grant_id: grantId,
    account_id: accountId,
    client_id: request.client_id,
    redirect_uri: request.redirect_uri,
    code_challenge: request.code_challenge,
    resource: request.resource,
    scopes,
    created_at: now,
    expires_at_s: nowS + lifetimes.code,
    used_at: null,
    issuer: issuerOf(deps, request),
    ...(shown ? { widens_grant: true } : {}),
  });
  return {
    kind: 'redirect',
    location: withParams(request.redirect_uri, { code, state: request.state, iss: issuerOf(deps, request) }),
  };
}

/**
 * "Not you? Sign out": ends this browser's sign-in session and starts the same request again at
 * the sign-in page (a new request, since the old one is bound to the account that signed out).
 */
async function signOutAndStartAgain(
  deps: OAuthDeps,
  requestId: string,
  csrf: string,
  browser: BrowserRequest,
): Promise<WebResult> {
  const request = await deps.store.takePendingAuthorization(requestId, hashSecret(csrf), true, deps.now());
  if (!request) throw staleForm();
  if (request.account_id && request.sign_in_id) {
    await endSignInAndItsGrants(deps.store, request.account_id, request.sign_in_id, deps.now());
  }
  const client = await findClient(deps, request);
  const valid: ValidRequest = {
    redirectUri: request.redirect_uri,
    state: request.state,
    codeChallenge: request.code_challenge,
    resource: request.resource,
    scopes: request.scopes,
  };
  // The browser still sends the ended session's cookie: the sign-in page removes it.
  return startSignIn(deps, client, valid, browser);
}

/**
 * The step-up grant the consent page showed must still be live and hold what the page said: a page
 * left open while the grant was revoked, or widened from another tab, is out of date.
 */
async function requireUnchangedGrant(
  deps: OAuthDeps,
  accountId: string,
  shown: StepUpShown,
  now: number,
): Promise<void> {
  const grant = await deps.store.getGrant(accountId, shown.grant_id);
  const unchanged =
    grant !== null &&
    grant.revoked_at === null &&
    grant.expires_at_s * 1000 > now &&
    grant.scopes.length === shown.held.length &&
    shown.held.every((scope) => grant.scopes.includes(scope));
  if (!unchanged) {
    throw new AuthorizationPageError(
      'Permissions changed',
      'What this application may do changed since this page was shown. Start again from the application.',
    );
  }
}

/** The ticked scopes; a form can only tick what the page offered, so anything else is a forged form. */
function approvedScopes(ticked: string[], offered: readonly McpScope[]): McpScope[] {
  if (ticked.some((scope) => !(offered as readonly string[]).includes(scope))) {
    throw new AuthorizationPageError(
      'Bad request',
      'The form approves a permission this page did not offer: the application did not ask for it, or the API key you signed in with does not hold it. Start again from the application.',
    );
  }
  return offered.filter((scope) => ticked.includes(scope));
}

function denied(deps: OAuthDeps, request: PendingAuthorization, description: string): WebResult {
  return errorRedirect(
    deps,
    request.redirect_uri,
    request.state,
    new OAuthError('access_denied', description),
    issuerOf(deps, request),
  );
}

/**
 * The issuer an authorization request reached. The upstream sign-in returns to one callback URL, which
 * may be another site's (locally `localhost` and `127.0.0.1`); the response still names the issuer the
 * client started with, which is the one it checks `iss` against (RFC 9207).
 */
function issuerOf(deps: OAuthDeps, request: PendingAuthorization): string {
  return request.issuer ?? deps.settings.issuer;
}

async function findClient(deps: OAuthDeps, request: PendingAuthorization): Promise<OAuthClient> {
  const client = await deps.clients.find(request.client_id, issuerOf(deps, request)).catch(() => null);
  if (!client)
    throw new AuthorizationPageError('Unknown application', 'The application is no longer registered.');
  return client;
}

function clientView(client: OAuthClient, redirectUri: string): ClientView {
  const check = checkRedirectUri(redirectUri);
  const url = new URL(redirectUri);
  return {
    name: client.client_name,
    verifiedHost:
      client.source === 'metadata_document'
        ? new URL(client.client_id).host
        : client.source === 'first_party'
          ? url.host
          : null,
    // An app scheme names the app (`cursor://anysphere.cursor-mcp`, `com.example.app:`), a URL its host.
    redirectHost:
      check.ok && check.kind === 'private-use'
        ? `${url.protocol}${url.host ? `//${url.host}` : ''}`
        : url.host,
  };
}

/**
 * An error found before the user signed in and approved anything: redirected only to https and
 * loopback URIs (RFC 9700 section 4.11.2); an app's private-use scheme gets a page instead, so that a
 * crafted link cannot launch the app without the user having done anything.
 */
function earlyErrorRedirect(
  deps: OAuthDeps,
  redirectUri: string,
  state: string | null,
  error: unknown,
): WebResult {
  if (error instanceof OAuthError && !redirectsAutomatically(redirectUri)) {
    throw new AuthorizationPageError(
      'Request not valid',
      `The application's request cannot be answered (${error.error}: ${error.description}).`,
    );
  }
  return errorRedirect(deps, redirectUri, state, error);
}

function errorRedirect(
  deps: OAuthDeps,
  redirectUri: string,
  state: string | null,
  error: unknown,
  issuer: string = deps.settings.issuer,
): WebResult {
  if (!(error instanceof OAuthError)) throw error;
  return {
    kind: 'redirect',
    location: withParams(redirectUri, {
      error: error.error,
      error_description: error.description,
      state,
      iss: issuer,
    }),
  };
}

function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params))
    if (value !== null) url.searchParams.append(name, value);
  return url.href;
}

/** A parameter that must appear at most once (RFC 6749 section 3.1). */
function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} must not be repeated`);
  return values[0];
}

function page(status: number, html: string, cookies: string[] = []): WebResult {
  return cookies.length > 0 ? { kind: 'page', status, html, cookies } : { kind: 'page', status, html };
}

function withCookies(result: WebResult, cookies: string[]): WebResult {
  return cookies.length > 0 ? { ...result, cookies: [...(result.cookies ?? []), ...cookies] } : result;
}

function expired(): AuthorizationPageError {
  return new AuthorizationPageError(
    'Sign-in expired',
    'This authorization request has expired or was already used.',
  );
}

function staleForm(): AuthorizationPageError {
  return new AuthorizationPageError(
    'Form out of date',
    'This form is out of date or was already submitted. Start again from the application.',
    403,
  );
}
