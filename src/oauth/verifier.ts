import { createLocalJWKSet, errors, type JWK, type JWTPayload, jwtVerify } from 'jose';
import { loadConfig } from '../config.ts';
import { API_KEY_PREFIX } from '../domain/accounts.ts';
import type { McpScope } from '../domain/scopes.ts';
import {
  type AccessGrant,
  type AccessTokenVerifier,
  InvalidAccessTokenError,
} from '../ports/access-tokens.ts';
import { ACCESS_TOKEN_TYP } from './access-token.ts';
import { isMcpScope } from './scopes.ts';
import { getOAuthStore } from './services.ts';
import { lifetimes, oauthSettings } from './settings.ts';
import { publicSigningJwk, SIGNING_ALG, signingKeyFrom } from './signing-key.ts';

export interface JwtAccessTokenVerifierOptions {
  issuer: string;
  /** The MCP resource URL: the audience a token must have when `verify` is not told another one. */
  resource: string;
  /**
   * The other resources of this same server, each with the issuer of its site: the REST API, and
   * locally the resources at `localhost` besides `127.0.0.1`. `verify` may be asked for any of them.
   */
  otherSites?: ReadonlyArray<{ issuer: string; resource: string }>;
  /** Public JWKs of our signing keys (ES256 only). */
  keys: JWK[];
  clockToleranceSeconds?: number;
  /**
   * Whether the consent a token came from still stands (not revoked, e.g. after a replayed code or a
   * reused refresh token). Without it, a token is good until it expires.
   */
  isGrantActive?: (accountId: string, grantId: string) => Promise<boolean>;
  /** For tests: the current time in epoch milliseconds. */
  now?: () => number;
}

const REQUIRED_CLAIMS = ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'client_id', 'scope', 'grant_id'];

/**
 * Verifies the MCP server's access tokens: an ES256 signature by one of our keys (`alg: none`, HS*
 * and every other algorithm refused), header `typ: at+jwt` (so ID tokens, typ JWT, fail), iss the
 * issuer of the site whose resource is asked for, aud exactly the MCP resource the request reached, exp / nbf / iat within a small skew, and the
 * claims we issue. API keys (`svc_sk_...`) are refused outright. Error messages say why, never
 * repeat the token.
 */
export class JwtAccessTokenVerifier implements AccessTokenVerifier {
  private readonly jwks: ReturnType<typeof createLocalJWKSet>;
  /** Each resource and the issuer of its site: a token for a resource must come from that issuer. */
  private readonly issuerOf: Map<string, string>;

  constructor(private readonly options: JwtAccessTokenVerifierOptions) {
    const sites = [{ issuer: options.issuer, resource: options.resource }, ...(options.otherSites ?? [])];
    this.issuerOf = new Map(sites.map((site) => [site.resource, site.issuer]));
    const keys = options.keys.filter((key) => key.kty === 'EC' && key.crv === 'P-256' && key.d === undefined);
    if (keys.length === 0)
      throw new Error('The access token verifier needs at least one public EC P-256 key');
    this.jwks = createLocalJWKSet({ keys: keys.map((key) => ({ ...key, alg: SIGNING_ALG })) });
  }

  async verify(token: string, resource = this.options.resource): Promise<AccessGrant> {
    // A caller's mistake, not a bad token: the audience asked for must be one of ours.
    const issuer = this.issuerOf.get(resource);
    if (!issuer) throw new Error(`${resource} is not a resource of this server`);
    if (typeof token !== 'string' || token.length === 0) throw invalid('No access token');
    if (token.startsWith(API_KEY_PREFIX)) {
      throw invalid('API keys are not accepted here: this endpoint takes OAuth access tokens');
    }
    if (token.length > 8192) throw invalid('The access token is too long');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        algorithms: [SIGNING_ALG],
        typ: ACCESS_TOKEN_TYP,
        audience: resource,
        clockTolerance: this.options.clockToleranceSeconds ?? lifetimes.clockSkew,
        // Also refuses an iat in the future; our tokens never live longer than this.
        maxTokenAge: lifetimes.accessToken,
        requiredClaims: REQUIRED_CLAIMS,
        ...(this.options.now ? { currentDate: new Date(this.options.now()) } : {}),
      }));
    } catch (error) {
      throw invalid(reason(error));
    }
    // aud must be the resource alone: a token for several audiences is not ours.
    const aud = payload.aud;
    if (Array.isArray(aud) ? aud.length !== 1 || aud[0] !== resource : aud !== resource) {
      throw invalid('The access token is not for this resource (aud)');
    }
    // RFC 9068 section 4: the issuer the resource's metadata names, not any issuer of ours. Checked
    // after aud, so that a token for the other site is refused for what it is.
    if (payload.iss !== issuer) throw invalid('The access token was not issued by this server (iss)');
    const { sub, client_id: clientId, scope, grant_id: grantId } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || sub.length === 0) throw invalid('The access token has no subject');
    if (typeof clientId !== 'string' || clientId.length === 0)
      throw invalid('The access token has no client_id');
    if (typeof scope !== 'string') throw invalid('The access token has no scope');
    if (typeof grantId !== 'string' || grantId.length === 0)
      throw invalid('The access token has no grant_id');
    if (this.options.isGrantActive && !(await this.options.isGrantActive(sub, grantId))) {
      throw invalid('The access token has been revoked');
    }
    const scopes = scope.split(' ').filter((s): s is McpScope => isMcpScope(s));
    return { accountId: sub, clientId, scopes: [...new Set(scopes)], grantId };
  }
}

function reason(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The access token is not for this resource (aud)';
    if (error.claim === 'iss') return 'The access token was not issued by this server (iss)';
    if (error.claim === 'typ') return 'The token is not an access token (typ must be at+jwt)';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'The access token is not valid yet';
    return `The access token is missing or has a bad ${error.claim} claim`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The access token is not signed with ES256';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The access token signature is not valid';
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token was not signed by a key of this server';
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'The access token names an ambiguous key';
  return 'The access token is malformed';
}

function invalid(message: string): InvalidAccessTokenError {
  return new InvalidAccessTokenError(message);
}

let verifier: Promise<AccessTokenVerifier> | undefined;

/**
 * The verifier of this deployment, configured from the environment: NOTES_PUBLIC_URL (issuer; the
 * resource is `<it>/mcp`), the public half of the signing key (NOTES_OAUTH_SIGNING_KEY, or the KMS
 * key of NOTES_OAUTH_KMS_KEY_ID, read once), and the table, where it
 * checks that a token's grant has not been revoked (one read per verification).
 */
export function getAccessTokenVerifier(): AccessTokenVerifier {
  verifier ??= createVerifier();
  const ready = verifier;
  return { verify: async (token, resource) => (await ready).verify(token, resource) };
}

async function createVerifier(): Promise<AccessTokenVerifier> {
  const settings = oauthSettings(loadConfig());
  // With KMS the public key is read from KMS once (GetPublicKey); a local JWK gives it directly.
  const keys =
    settings.signingKey.kind === 'jwk'
      ? [publicSigningJwk(settings.signingKey.json)]
      : [(await signingKeyFrom(settings.signingKey)).publicJwk];
  return new JwtAccessTokenVerifier({
    issuer: settings.issuer,
    resource: settings.resource,
    otherSites: [
      ...settings.sites.slice(1),
      ...settings.sites.map((site) => ({ issuer: site.issuer, resource: site.restResource })),
    ],
    keys,
    isGrantActive: async (accountId, grantId) => {
      const grant = await getOAuthStore().getGrant(accountId, grantId);
      return grant !== null && grant.revoked_at === null && grant.expires_at_s * 1000 > Date.now();
    },
  });
}
