import * as oidc from 'openid-client';
import type { AccountStore } from '../ports/account-store.ts';
import { accountForIdentity } from './identities.ts';
import type { OAuthStore } from './store.ts';
import { type RedirectSignIn, UpstreamSignInError } from './upstream.ts';

export interface OidcSignInOptions {
  issuer: string;
  clientId: string;
  /** Cognito app clients with a secret authenticate with it (client_secret_post); without, PKCE alone. */
  clientSecret: string | undefined;
  /** Our /oauth/callback, registered as a callback URL of the upstream app client. */
  callbackUrl: string;
  store: OAuthStore;
  accounts: AccountStore;
  now: () => number;
}

/**
 * Sign-in through an OpenID provider: Cognito managed login on AWS, `oidc-provider` in the tests.
 * Authorization code flow with PKCE (S256), state and nonce; the ID token's `sub` (issuer-scoped) is
 * mapped to an account, which is created on the first sign-in. The provider's tokens are not kept:
 * they only prove who signed in. Plain-http issuers are accepted only on loopback hosts (tests).
 */
export class OidcSignIn implements RedirectSignIn {
  readonly kind = 'redirect';
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(private readonly options: OidcSignInOptions) {}

  async begin(state: string): Promise<{ url: string; pending: Record<string, string> }> {
    const config = await this.config();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.callbackUrl,
      response_type: 'code',
      // email: the address names the account a first sign-in creates (Cognito's client allows it).
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending: { code_verifier: codeVerifier, nonce } };
  }

  async finish(callbackUrl: URL, state: string, pending: Record<string, string>): Promise<string> {
    const config = await this.config();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.code_verifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw new UpstreamSignInError(
        `The provider's response was refused: ${error instanceof Error ? `${error.name} ${(error as { code?: string }).code ?? ''}`.trim() : 'unknown error'}`,
      );
    }
    if (!claims || typeof claims.sub !== 'string' || claims.sub.length === 0) {
      throw new UpstreamSignInError('The ID token has no subject');
    }
    const name = [claims.email, claims.preferred_username, claims['cognito:username']].find(
      (value): value is string => typeof value === 'string' && value.length > 0,
    );
    return accountForIdentity(
      this.options.store,
      this.options.accounts,
      { issuer: claims.iss, subject: claims.sub, name: name ?? 'OpenID user' },
      this.options.now(),
    );
  }

  private config(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret } = this.options;
      const url = new URL(issuer);
      const insecure = url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
      this.configuration = oidc
        .discovery(
          url,
          clientId,
          clientSecret,
          clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None(),
          insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
        )
        .catch((error: unknown) => {
          // Try discovery again on the next sign-in rather than caching the failure.
          this.configuration = undefined;
          throw new UpstreamSignInError(
            `Discovery of ${issuer} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        });
    }
    return this.configuration;
  }
}
