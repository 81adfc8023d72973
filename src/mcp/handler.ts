import {
  type AuthInfo,
  createMcpHandler as createSdkHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { API_KEY_PREFIX } from '../domain/accounts.ts';
import { type McpScope, mcpScopes } from '../domain/scopes.ts';
import { emptyResponse, jsonResponse, toWebResponse, withBaseHeaders } from '../http/response.ts';
import { logger } from '../logging.ts';
import { protectedResourceMetadataUrl } from '../oauth/metadata.ts';
import { DEFAULT_SCOPES } from '../oauth/scopes.ts';
import { mcpResource, publicUrlForHost } from '../oauth/settings.ts';
import {
  type AccessGrant,
  type AccessTokenVerifier,
  InvalidAccessTokenError,
} from '../ports/access-tokens.ts';
import { type AskServices, getAskServices } from '../wiring/ask-services.ts';
import { getServices, type Services } from '../wiring/services.ts';
import { acceptsJson, TRANSPORT_ACCEPT } from './accept.ts';
import {
  corsPreflightHeaders,
  corsResponseHeaders,
  mcpOriginPolicy,
  type OriginVerdict,
} from './origin-policy.ts';
import { createMcpServer } from './server.ts';
import { findTool } from './tools.ts';
import { withLegacyVersionsListed } from './versions.ts';

export interface McpHandlerOptions {
  /** Verifies the OAuth access tokens (signature, issuer, audience = the MCP resource, expiry). */
  verifier: AccessTokenVerifier;
  /**
   * The service's public base URL (`NOTES_PUBLIC_URL`, no trailing slash): the MCP resource is
   * `${publicUrl}/mcp`, its protected resource metadata `${publicUrl}/.well-known/oauth-protected-resource/mcp`.
   */
  publicUrl: string;
  /**
   * Other base URLs that reach this same server (locally `http://localhost:PORT` besides
   * `http://127.0.0.1:PORT`). A request is answered for the one whose host it reached: the challenge
   * names that host's metadata, and only tokens for that host's resource are accepted.
   */
  otherPublicUrls?: readonly string[];
  /**
   * Origins a browser-based client may call from (src/mcp/origin-policy.ts). A request without
   * `Origin` is always served; any other origin gets 403.
   */
  allowedOrigins: readonly string[];
  /** Default: the API's services (src/wiring/services.ts), created on first use. */
  services?: () => Services;
  /** Default: the Ask answer engine (src/wiring/ask-services.ts), created on first use. */
  askServices?: () => AskServices;
  /**
   * Told about every 403 `insufficient_scope`: the grant and the scopes it lacked. The OAuth server
   * notes them on the grant so that its next refresh answers `invalid_grant` and the client
   * authorizes again with the wider scope (src/mcp/wiring.ts). Default: nothing is recorded.
   */
  recordStepUp?: (grant: AccessGrant, scopes: McpScope[]) => Promise<void>;
}

/** Handles one HTTP request to `/mcp` with Web-standard objects. */
export type McpHandler = (request: Request) => Promise<Response>;

/** JSON-RPC messages are small; the largest tool input (askWorkspace with 100 note IDs) is a few KiB. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/**
 * The MCP endpoint: Streamable HTTP, stateless (a fresh server and transport per request), JSON
 * responses, POST only. Before the MCP server sees a request: the Origin (a foreign one gets 403
 * first; an allowed one gets CORS headers on every answer), the method (a CORS preflight is answered
 * here), the bearer token (OAuth access tokens only; `svc_sk_` API keys are refused without being
 * looked up), and the scopes of every `tools/call` in it (403 `insufficient_scope` naming the scopes
 * to ask for).
 */
export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const publicUrls = [options.publicUrl, ...(options.otherPublicUrls ?? [])];
  const originPolicy = mcpOriginPolicy(options.allowedOrigins);
  const services = options.services ?? getServices;
  const askServices = options.askServices ?? getAskServices;
  // One SDK handler serves every 2026-07-28 request; it builds a fresh server for each, acting for
  // the grant the request's token carries (passed through as authInfo, never read from headers).
  // Its `auto` response mode answers JSON unless a tool sends a message before its result, which
  // none does (mode `json` would say the same, with a console warning on every start).
  const modern = createSdkHandler(
    ({ authInfo }) => createMcpServer({ grant: grantOf(authInfo), services, askServices }, 'modern'),
    { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: MAX_MCP_BODY_BYTES },
  );

  // Without a token, a client asks for the default grant.
  const unauthorized = (resourceMetadataUrl: string, detail: string, invalidToken: boolean) => {
    const error = invalidToken ? 'error="invalid_token", ' : '';
    return problem(401, detail, {
      'WWW-Authenticate': `Bearer ${error}resource_metadata="${resourceMetadataUrl}", scope="${DEFAULT_SCOPES.join(' ')}"`,
    });
  };

  return async function handleMcp(request: Request): Promise<Response> {
    const verdict = originPolicy(request.headers.get('origin'));
    if (verdict.kind === 'refused') {
      return problem(403, `Origin ${verdict.origin} is not allowed to call this MCP server`, {
        Vary: 'Origin',
      });
    }
    if (request.method === 'OPTIONS') return preflight(verdict);
    return withHeaders(await serve(request), corsResponseHeaders(verdict));
  };

  async function serve(request: Request): Promise<Response> {
    const publicUrl = publicUrlForHost(publicUrls, new URL(request.url).host);
    const resourceMetadataUrl = protectedResourceMetadataUrl(publicUrl);
    if (request.method !== 'POST') {
      return problem(
        405,
        `${request.method} is not allowed on /mcp: this MCP server is stateless and answers POST only`,
        { Allow: 'POST' },
      );
    }

    const token = bearerToken(request.headers.get('authorization'));
    if (token === null) {
      return unauthorized(
        resourceMetadataUrl,
        'Missing access token: authorize with OAuth and send Authorization: Bearer <token>',
        false,
      );
    }
    if (token.startsWith(API_KEY_PREFIX)) {
      return unauthorized(
        resourceMetadataUrl,
        'API keys (svc_sk_...) are not accepted by the MCP server: authorize with OAuth and send the access token',
        true,
      );
    }
    let grant: AccessGrant;
    try {
      grant = await options.verifier.verify(token, mcpResource(publicUrl));
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) {
        return unauthorized(resourceMetadataUrl, `Invalid access token: ${error.message}`, true);
      }
      throw error;
    }

    if (!acceptsJson(request.headers.get('accept'))) {
      return problem(
        406,
        'This MCP server answers application/json only (no event streams): send Accept: application/json (optionally with text/event-stream)',
      );
    }

    const text = await request.text();
    if (Buffer.byteLength(text, 'utf8') > MAX_MCP_BODY_BYTES) {
      return problem(413, `Request body is larger than ${MAX_MCP_BODY_BYTES} bytes`);
    }
    const message = parseJson(text);
    const shortOf = message === undefined ? [] : scopesShort(message, grant.scopes);
    if (shortOf.length > 0) {
      const missing = orderedScopes(shortOf.flatMap((call) => call.missing));
      const wanted = orderedScopes([...grant.scopes, ...missing]).join(' ');
      const needs = shortOf.map((call) => `${call.tool} needs ${call.missing.join(' and ')}`).join('; ');
      // Before answering, so that the client's refresh that follows already sees it.
      await options.recordStepUp?.(grant, missing).catch((error: unknown) => {
        logger.warn('Could not record the step-up on the grant', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
      return problem(
        403,
        `Insufficient scope: ${needs}, which this access token was not granted. Authorize again with scope "${wanted}".`,
        {
          'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${resourceMetadataUrl}", error_description="${missing.join(' ')} required"`,
        },
      );
    }

    // The transport refuses an Accept without text/event-stream even in JSON mode: give it the one
    // it wants once JSON is known to be acceptable. Invalid JSON goes to it as it came, so the
    // client gets the protocol's parse error.
    const headers = new Headers(request.headers);
    headers.set('accept', TRANSPORT_ACCEPT);
    const forwarded = new Request(request.url, { method: 'POST', headers, body: text });
    const parsed = message === undefined ? {} : { parsedBody: message };
    if (await isLegacyRequest(forwarded, message)) {
      const context = { grant, services, askServices };
      return withBaseHeaders(await serveLegacy(forwarded, parsed, context));
    }
    // 2026-07-28: the version, client info and capabilities ride in each request's _meta; the SDK
    // checks them and the Mcp-Method/Mcp-Name headers, answers server/discover, and adds
    // resultType and the cache hints to the results.
    const response = await modern.fetch(forwarded, { ...parsed, authInfo: authInfoOf(token, grant) });
    return withBaseHeaders(await withLegacyVersionsListed(response));
  }
}

/**
 * A 2025 request (initialize, or a request without the 2026 `_meta`): served as before this server
 * spoke 2026-07-28, by a fresh stateless transport answering JSON (no session, no stream).
 */
async function serveLegacy(
  request: Request,
  parsed: { parsedBody?: unknown },
  context: Parameters<typeof createMcpServer>[0],
): Promise<Response> {
  const server = createMcpServer(context, 'legacy');
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsed);
  } finally {
    await server.close();
  }
}

/** An allowed origin's preflight gets the CORS rules; without Origin it is a plain OPTIONS. */
function preflight(verdict: OriginVerdict): Response {
  const headers =
    verdict.kind === 'allowed' ? corsPreflightHeaders(verdict) : { Allow: 'POST, OPTIONS', Vary: 'Origin' };
  return toWebResponse(emptyResponse(204, headers));
}

/** The grant rides to the modern path's server factory in the SDK's authInfo. */
function authInfoOf(token: string, grant: AccessGrant): AuthInfo {
  return { token, clientId: grant.clientId, scopes: [...grant.scopes], extra: { grant } };
}

function grantOf(authInfo: AuthInfo | undefined): AccessGrant {
  const grant = authInfo?.extra?.grant as AccessGrant | undefined;
  // Every request reaches the SDK after its token was verified: no grant is a wiring error.
  if (!grant) throw new Error('MCP request without a verified grant');
  return grant;
}

function withHeaders(response: Response, extra: Record<string, string>): Response {
  for (const [name, value] of Object.entries(extra)) response.headers.set(name, value);
  return response;
}

function bearerToken(authorization: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The `tools/call`s of a JSON-RPC message or batch whose tool needs scopes the grant lacks. Unknown
 * tools and malformed messages are left to the MCP server, which answers them in protocol terms.
 */
function scopesShort(message: unknown, granted: readonly string[]): { tool: string; missing: McpScope[] }[] {
  const short: { tool: string; missing: McpScope[] }[] = [];
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const { method, params } = item as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const missing = (findTool(params.name)?.scopes ?? []).filter((scope) => !granted.includes(scope));
    if (missing.length > 0) short.push({ tool: params.name, missing });
  }
  return short;
}

function orderedScopes(scopes: readonly string[]): McpScope[] {
  return (Object.keys(mcpScopes) as McpScope[]).filter((scope) => scopes.includes(scope));
}

function problem(status: number, detail: string, headers: Record<string, string> = {}): Response {
  return toWebResponse(jsonResponse(status, { detail }, headers));
}
