import type { Config } from '../config.ts';

/** Lifetimes, in seconds. */
export const lifetimes = {
  /** Access tokens (JWT): short, since they are checked without a round trip to the issuer's tokens. */
  accessToken: 3600,
  /** Authorization codes: the client exchanges them right after the redirect. */
  code: 120,
  /** A pending authorization request: long enough to sign in upstream and read the consent page. */
  pendingRequest: 600,
  /**
   * A step-up mark on a grant (its refreshes answer invalid_grant): long enough for the client to
   * start an authorization and the user to reach its consent page, then refreshes work again.
   */
  stepUpMark: 1200,
  /** A refresh token is replaced on every use; unused for this long, it expires. */
  refreshTokenIdle: 30 * 86_400,
  /** However often it is refreshed, a grant ends after this and the user consents again. */
  grantAbsolute: 180 * 86_400,
  /** A browser's sign-in session at the sign-in page: unused for this long, it ends. */
  signInIdle: 7 * 86_400,
  /** However often it is used, a browser's sign-in session ends after this and the key is asked for again. */
  signInAbsolute: 30 * 86_400,
  /** Client ID Metadata Documents are cached this long per process. */
  clientMetadataCache: 300,
  /** Clock skew tolerated when checking exp / nbf / iat. */
  clockSkew: 30,
} as const;

export type UpstreamSettings =
  | { kind: 'local' }
  | { kind: 'oidc'; issuer: string; clientId: string; clientSecret: string | undefined };

/** One public base URL of the service: the issuer there and the resources there. */
export interface OAuthSite {
  /** Issuer identifier (RFC 8414): the public base URL, without a trailing slash. */
  issuer: string;
  /** The MCP resource (RFC 8707 / RFC 9728): `<issuer>/mcp`, the `aud` of the tokens for it. */
  resource: string;
  /** The REST API as a protected resource: `<issuer>/v1`, the `aud` of the web app's tokens. */
  restResource: string;
}

/**
 * `issuer` and `resource` are those of the host a request reached (`settingsForHost`); outside a
 * request, those of the primary public URL.
 */
export interface OAuthSettings extends OAuthSite {
  /** Every public base URL that reaches this server, the primary (NOTES_PUBLIC_URL) first. */
  sites: readonly OAuthSite[];
  /** `NOTES_OAUTH_SIGNING_KEY` (a private JWK, still JSON) or `NOTES_OAUTH_KMS_KEY_ID`. */
  signingKey: SigningKeySource;
  upstream: UpstreamSettings;
}

export type SigningKeySource = { kind: 'jwk'; json: string } | { kind: 'kms'; keyId: string };

export function mcpResource(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/mcp`;
}

/** The REST API's resource identifier: its path prefix, so a token for it names what it opens. */
export function restResource(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1`;
}

/** Both resources of the site at `publicUrl`. */
export function siteAt(publicUrl: string): OAuthSite {
  const issuer = publicUrl.replace(/\/+$/, '');
  return { issuer, resource: mcpResource(issuer), restResource: restResource(issuer) };
}

/** Every resource this server issues tokens for, at every site. */
export function servedResources(sites: readonly OAuthSite[]): string[] {
  return sites.flatMap((site) => [site.resource, site.restResource]);
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost'];

/**
 * The public base URLs of a deployment, the primary first. On AWS exactly `publicUrl`. Locally (a
 * loopback `publicUrl`) every loopback spelling of its port, since people type `localhost` as often
 * as `127.0.0.1`: each is its own issuer and resource, and a token for one is not accepted at the other.
 */
export function publicBaseUrls(publicUrl: string): string[] {
  const primary = publicUrl.replace(/\/+$/, '');
  const url = new URL(primary);
  if (!LOOPBACK_NAMES.includes(url.hostname)) return [primary];
  const others = LOOPBACK_NAMES.filter((name) => name !== url.hostname).map((name) => {
    const alias = new URL(primary);
    alias.hostname = name;
    return alias.origin;
  });
  return [primary, ...others];
}

/** The public base URL among `publicUrls` whose host is `host` (a Host header); else the primary. */
export function publicUrlForHost(publicUrls: readonly string[], host: string | null | undefined): string {
  const wanted = host?.toLowerCase();
  const match = publicUrls.find((url) => new URL(url).host === wanted);
  return match ?? (publicUrls[0] as string);
}

/** The settings as seen from a request that reached `host`: that host's issuer and resource. */
export function settingsForHost(settings: OAuthSettings, host: string | null | undefined): OAuthSettings {
  const issuer = publicUrlForHost(
    settings.sites.map((site) => site.issuer),
    host,
  );
  return { ...settings, ...siteAt(issuer) };
}

/**
 * The issuer of the site that serves `resource`: tokens for a resource are signed in its site's name,
 * since that site's protected resource metadata lists only that issuer (RFC 9068 section 4).
 */
export function issuerOfResource(settings: OAuthSettings, resource: string): string {
  return (
    settings.sites.find((site) => site.resource === resource || site.restResource === resource)?.issuer ??
    settings.issuer
  );
}

/** The OAuth part of the configuration, or an error that says which variable to set. */
export function oauthSettings(config: Config): OAuthSettings {
  const issuer = config.NOTES_PUBLIC_URL;
  if (!issuer) {
    throw new Error(
      'NOTES_PUBLIC_URL is required for the MCP OAuth server: the external base URL of the service, e.g. https://notes.example.com',
    );
  }
  const signingKey: SigningKeySource | null = config.NOTES_OAUTH_KMS_KEY_ID
    ? { kind: 'kms', keyId: config.NOTES_OAUTH_KMS_KEY_ID }
    : config.NOTES_OAUTH_SIGNING_KEY
      ? { kind: 'jwk', json: config.NOTES_OAUTH_SIGNING_KEY }
      : null;
  if (!signingKey) {
    throw new Error(
      'The MCP OAuth server needs a signing key: NOTES_OAUTH_KMS_KEY_ID (an AWS KMS ECC_NIST_P256 key) or NOTES_OAUTH_SIGNING_KEY (an EC P-256 private JWK as JSON; generateSigningKey() in src/oauth/signing-key.ts makes one)',
    );
  }
  const sites = publicBaseUrls(issuer).map(siteAt);
  return { ...siteAt(issuer), sites, signingKey, upstream: upstreamSettings(config) };
}

function upstreamSettings(config: Config): UpstreamSettings {
  if (config.NOTES_OAUTH_UPSTREAM === 'local') return { kind: 'local' };
  const issuer = config.NOTES_OIDC_ISSUER;
  const clientId = config.NOTES_OIDC_CLIENT_ID;
  if (!issuer || !clientId) {
    throw new Error(
      'NOTES_OAUTH_UPSTREAM=oidc needs NOTES_OIDC_ISSUER (the provider, e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>) and NOTES_OIDC_CLIENT_ID',
    );
  }
  return { kind: 'oidc', issuer, clientId, clientSecret: config.NOTES_OIDC_CLIENT_SECRET };
}
