import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { expect } from 'vitest';
import { consentDecision, heldScopes, hiddenFields, scopeCheckboxes } from './oauth-forms.ts';

/** What went over the wire, in order: `METHOD /path -> status`, the browser's lines marked. */
export type RequestLog = string[];

export const DEFAULT_REDIRECT_URL = 'http://127.0.0.1:53682/callback';

export function loggingFetch(log: RequestLog, who = ''): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    log.push(`${who}${init?.method ?? 'GET'} ${new URL(String(url)).pathname} -> ${response.status}`);
    return response;
  };
}

export interface HeadlessOAuthOptions {
  /** The service's base URL: where the browser posts the sign-in and consent forms. */
  base: string;
  /** The API key the user pastes into the local sign-in page. */
  signInKey: string;
  log?: RequestLog;
  /** The redirect URI of the authorization requests. */
  redirectUrl?: string;
  /** What the SDK registers (dynamic client registration) when it has no client information. */
  clientMetadata?: OAuthClientMetadata;
  /** A registration made beforehand (the SDK then does not register). */
  clientInformation?: OAuthClientInformationMixed;
}

/**
 * An in-memory OAuthClientProvider (as the SDK's examples have it) whose "browser" is headless:
 * redirectToAuthorization signs in with the API key and approves, then keeps the authorization code
 * from the Location of the redirect back to the client. That redirect is read, never followed, so
 * any redirect URI works (loopback, https, a custom scheme such as cursor://) without a listener.
 */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  /** The code of the last approved authorization, until finishAuth takes it. */
  code: string | undefined;
  /** What each consent page showed, one entry per authorization: already granted, and offered. */
  readonly consents: Array<{ held: string[]; offered: string[] }> = [];
  /** Scopes the user ticks beyond those the consent page ticks by default. */
  tick: string[] = [];
  /** Scopes the consent page ticks by default that the user unticks (all new ones: "keep what I have"). */
  untick: string[] = [];
  /** Where each consent page said the browser returns to. */
  readonly returnsTo: string[] = [];
  /** Every redirect back to the client, whole (code, state and iss included). */
  readonly redirects: string[] = [];
  readonly log: RequestLog;
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private expectedState: string | undefined;

  constructor(private readonly options: HeadlessOAuthOptions) {
    this.log = options.log ?? [];
    this.client = options.clientInformation;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl ?? DEFAULT_REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return (
      this.options.clientMetadata ?? {
        client_name: 'SDK end-to-end test',
        redirect_uris: [this.redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }
    );
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No code verifier saved');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** The user's part: sign-in page, API key, consent page, Allow; the code comes back on the redirect. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const browse = loggingFetch(this.log, 'browser: ');
    const form = (fields: Record<string, string> | URLSearchParams) =>
      browse(`${this.options.base}/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
        redirect: 'manual',
      });
    const signIn = await browse(authorizationUrl.href, { redirect: 'manual' });
    // An error goes back to the client as a redirect: its location says which.
    expect(signIn.status, signIn.headers.get('location') ?? '').toBe(200);
    const consent = await form({
      ...hiddenFields(await signIn.text()),
      api_key: this.options.signInKey,
      action: 'sign_in',
    });
    expect(consent.status).toBe(200);
    const consentHtml = await consent.text();
    this.consents.push({
      held: heldScopes(consentHtml),
      offered: scopeCheckboxes(consentHtml).map((box) => box.scope),
    });
    this.returnsTo.push(/returns to <strong>([^<]+)<\/strong>/.exec(consentHtml)?.[1] ?? '');
    const decision = await form(
      consentDecision(consentHtml, 'approve', { tick: this.tick, untick: this.untick }),
    );
    expect(decision.status).toBe(303);
    const location = decision.headers.get('location') ?? '';
    this.redirects.push(location);
    // Compared as text: a custom scheme's URL has no origin to compare.
    expect(location.slice(0, location.indexOf('?'))).toBe(this.redirectUrl);
    const back = new URL(location);
    // A client in another process (a bridge) made its state itself and checks it itself.
    if (this.expectedState !== undefined) expect(back.searchParams.get('state')).toBe(this.expectedState);
    expect(back.searchParams.get('iss')).toBe(this.options.base);
    this.code = back.searchParams.get('code') ?? undefined;
    expect(this.code).toBeTruthy();
  }

  /** The code, once: as a redirect handler hands it to the app. */
  takeCode(): string {
    const code = this.code;
    this.code = undefined;
    if (!code) throw new Error('No authorization code: the authorization did not complete');
    return code;
  }
}
