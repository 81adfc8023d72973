import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { loadConfig } from '../config.ts';
import type { Caller } from '../domain/account.ts';
import { API_KEY_PREFIX, authenticate } from '../domain/accounts.ts';
import { ForbiddenError, UnauthorizedError } from '../domain/errors.ts';
import { WEB_APP_CLIENT_ID } from '../oauth/first-party.ts';
import { protectedResourceMetadataUrl } from '../oauth/metadata.ts';
import { publicBaseUrls, publicUrlForHost, restResource } from '../oauth/settings.ts';
import { firstPartyOnlyOperations, missingScopes, operationScopes } from '../operation-scopes.ts';
import { type AccessGrant, InvalidAccessTokenError } from '../ports/access-tokens.ts';
import type { OperationId } from '../routes.ts';
import type { Services } from '../wiring/services.ts';
import { header } from './request.ts';

/**
 * Resolves the caller of a REST operation from `Authorization: Bearer ...`: an API key (`svc_sk_`,
 * limited to the scopes it was made with), or an OAuth access token of this service whose audience is the REST
 * API (`<public URL>/v1`), verified as the MCP server verifies its own (signature, issuer of the host
 * the request reached, expiry, audience, revocation) and limited to the operations its scopes allow.
 * A token for the MCP server is refused here, as a REST token is at /mcp.
 */
export async function authenticateRest(
  services: Services,
  event: APIGatewayProxyEventV2,
  operationId: OperationId,
): Promise<Caller> {
  const authorization = header(event, 'authorization');
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (token === undefined || !isJwtShaped(token)) {
    const caller = await authenticate(services.accounts, authorization);
    const short = caller.api_key ? missingScopes(operationId, caller.api_key.scopes) : [];
    if (short.length > 0) {
      throw new ForbiddenError(
        `This API key may not ${operationId}: it was made without ${short.join(' and ')}. Make a key that holds it (createApiKey, from a credential that does).`,
      );
    }
    return caller;
  }

  const publicUrl = restPublicUrl(header(event, 'host'));
  if (publicUrl === null) {
    throw new UnauthorizedError(
      'This deployment accepts API keys only (its OAuth server is not configured): send Authorization: Bearer svc_sk_...',
    );
  }
  const metadata = protectedResourceMetadataUrl(publicUrl, 'v1');
  let grant: AccessGrant;
  try {
    // Loaded on the first access token only: jose, and on AWS the KMS client that reads the public
    // key, stay out of what an API-key request (and the cold start) reads.
    const { getAccessTokenVerifier } = await import('../oauth/verifier.ts');
    grant = await getAccessTokenVerifier().verify(token, restResource(publicUrl));
  } catch (error) {
    if (!(error instanceof InvalidAccessTokenError)) throw error;
    throw new UnauthorizedError(
      `Invalid access token: ${error.message}`,
      `Bearer error="invalid_token", error_description="${error.message}", resource_metadata="${metadata}"`,
    );
  }
  const account = await services.accounts.getAccount(grant.accountId);
  if (!account) {
    throw new UnauthorizedError(
      'Invalid access token: its account no longer exists',
      `Bearer error="invalid_token", resource_metadata="${metadata}"`,
    );
  }
  if (firstPartyOnlyOperations.has(operationId) && grant.clientId !== WEB_APP_CLIENT_ID) {
    throw new ForbiddenError(
      `${operationId} is reserved to API keys and the service's web app: tokens of other OAuth clients (MCP clients included) cannot manage API keys`,
    );
  }
  const missing = missingScopes(operationId, grant.scopes);
  if (missing.length > 0) {
    const wanted = [...new Set([...grant.scopes, ...operationScopes[operationId]])].join(' ');
    throw new ForbiddenError(
      `Insufficient scope: ${operationId} needs ${missing.join(' and ')}, which this access token was not granted. Sign in again with scope "${wanted}".`,
      `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${metadata}"`,
    );
  }
  return {
    account,
    api_key: null,
    access_token: { client_id: grant.clientId, scopes: grant.scopes, session_id: grant.grantId },
  };
}

/** A JWS compact serialization (three dot-separated parts); anything else is treated as an API key. */
function isJwtShaped(token: string): boolean {
  return !token.startsWith(API_KEY_PREFIX) && token.split('.').length === 3;
}

/**
 * The public base URL the request reached (locally `localhost` or `127.0.0.1`), or null when the
 * OAuth server is not configured (no NOTES_PUBLIC_URL): then no token can be ours.
 */
function restPublicUrl(host: string | undefined): string | null {
  const configured = loadConfig().NOTES_PUBLIC_URL;
  if (!configured) return null;
  return publicUrlForHost(publicBaseUrls(configured), host);
}
