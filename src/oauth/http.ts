import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ANY_ORIGIN, OAUTH_ALLOWED_HEADERS, preflightHeaders } from '../http/cors.ts';
import { storageFault } from '../http/error-mapper.ts';
import { type HttpLambdaHandler, httpLambda } from '../http/http-lambda.ts';
import { bodyText, header } from '../http/request.ts';
import { emptyResponse, jsonResponse, textResponse } from '../http/response.ts';
import { logger } from '../logging.ts';
import { type PublicRouteName, publicRoutes } from '../routes.ts';
import type { WebResult } from './authorize.ts';
import type { OAuthDeps } from './deps.ts';
import { AuthorizationPageError, OAuthError } from './errors.ts';
import { renderError } from './pages.ts';
import { getOAuthDeps } from './services.ts';
import { settingsForHost } from './settings.ts';
import { type BrowserRequest, browserRequest } from './sign-in-session.ts';

export type OAuthLambdaHandler = HttpLambdaHandler;

/** OAuth requests are small: parameters, a few redirect URIs. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Builds the Lambda handler of one OAuth endpoint: wires the dependencies, runs the endpoint, and maps
 * errors in one place: `json` endpoints answer `{ error, error_description }` (RFC 6749 section 5.2),
 * `page` endpoints (what a browser shows) answer an HTML error page. A CORS preflight (`OPTIONS`,
 * routed here only where the route table lists it) is answered for any origin before anything is
 * wired. Logs carry the route, status and request ID only: never parameters, codes, tokens, keys or
 * verifiers.
 */
export function oauthHandler(
  route: PublicRouteName,
  errors: 'json' | 'page',
  endpoint: (event: APIGatewayProxyEventV2, deps: OAuthDeps) => Promise<APIGatewayProxyStructuredResultV2>,
): OAuthLambdaHandler {
  return httpLambda(
    route,
    {
      onError: (error) => (errors === 'json' ? jsonError(error) : pageError(error)),
      errorLabel: (error) => (error instanceof OAuthError ? error.error : (error as Error | undefined)?.name),
    },
    async (event) =>
      event.requestContext.http.method === 'OPTIONS'
        ? preflight(route, requestPath(event))
        : endpoint(event, atHost(await getOAuthDeps(), header(event, 'host'))),
  );
}

/**
 * The dependencies as seen from the host the request reached: locally `localhost` and `127.0.0.1` are
 * each their own issuer and resource (src/oauth/settings.ts); on AWS there is one.
 */
function atHost(deps: OAuthDeps, host: string | undefined): OAuthDeps {
  return { ...deps, settings: settingsForHost(deps.settings, host) };
}

/** 204 for any origin, with the methods the route table lists at this path. */
function preflight(route: PublicRouteName, path: string): APIGatewayProxyStructuredResultV2 {
  const methods = publicRoutes[route].endpoints
    .filter((endpoint) => endpoint.path === path)
    .map((endpoint) => endpoint.method);
  return emptyResponse(204, preflightHeaders('*', { methods, allowHeaders: OAUTH_ALLOWED_HEADERS }));
}

function jsonError(error: unknown): APIGatewayProxyStructuredResultV2 {
  if (error instanceof OAuthError) return oauthJson(error.status, error.toBody(), error.headers);
  // A full disk or a read-only data directory: nothing was written, as REST says with 507/503.
  const fault = storageFault(error);
  if (fault) {
    return oauthJson(fault.status, { error: 'temporarily_unavailable', error_description: fault.detail });
  }
  logUnexpected(error);
  return oauthJson(500, { error: 'server_error', error_description: 'Internal error; try again later' });
}

function pageError(error: unknown): APIGatewayProxyStructuredResultV2 {
  if (error instanceof AuthorizationPageError) {
    return htmlResponse(error.status, renderError(error.title, error.description));
  }
  if (error instanceof OAuthError) {
    return htmlResponse(error.status, renderError('Request refused', error.description));
  }
  const fault = storageFault(error);
  if (fault) return htmlResponse(fault.status, renderError('Nothing could be saved', fault.detail));
  logUnexpected(error);
  return htmlResponse(
    500,
    renderError('Something went wrong', 'The request could not be completed. Try again later.'),
  );
}

function logUnexpected(error: unknown): void {
  // Name and message only: messages of our code never carry secrets; request data is not logged.
  logger.error('Unhandled error', {
    error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
  });
}

/** JSON for OAuth clients: never cached (RFC 6749 section 5.1), readable by browser-based clients. */
export function oauthJson(
  statusCode: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(statusCode, body, { Pragma: 'no-cache', ...ANY_ORIGIN, ...headers });
}

/** Public metadata and keys: cacheable for a few minutes. */
export function publicJson(body: unknown): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(200, body, { 'Cache-Control': 'public, max-age=300', ...ANY_ORIGIN });
}

/** Our pages: no script, not frameable, not cached, no referrer. */
export function htmlResponse(statusCode: number, html: string): APIGatewayProxyStructuredResultV2 {
  return textResponse(statusCode, html, 'text/html; charset=utf-8', {
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
}

/**
 * A page or a redirect: 302 answers a GET, 303 a form post (so the browser follows with a GET). Its
 * cookies go in payload 2.0's `cookies`, which API Gateway (and the local runtime) send as Set-Cookie.
 */
export function webResponse(result: WebResult, method: string): APIGatewayProxyStructuredResultV2 {
  const cookies = result.cookies?.length ? { cookies: result.cookies } : {};
  if (result.kind === 'page') return { ...htmlResponse(result.status, result.html), ...cookies };
  return {
    statusCode: method === 'POST' ? 303 : 302,
    headers: { Location: result.location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
    ...cookies,
  };
}

/** The browser side of a page request: its cookies and User-Agent (src/oauth/sign-in-session.ts). */
export function browserOf(event: APIGatewayProxyEventV2): BrowserRequest {
  return browserRequest(event.cookies, header(event, 'user-agent'));
}

export function queryOf(event: APIGatewayProxyEventV2): URLSearchParams {
  return new URLSearchParams(event.rawQueryString ?? '');
}

/** An application/x-www-form-urlencoded body (RFC 6749 section 3.2 and every form of ours). */
export function readForm(event: APIGatewayProxyEventV2): URLSearchParams {
  const contentType = header(event, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  }
  return new URLSearchParams(formBody(event));
}

/** A JSON body (client registration). */
export function readJson(event: APIGatewayProxyEventV2): unknown {
  const contentType = header(event, 'content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json');
  }
  try {
    return JSON.parse(formBody(event));
  } catch {
    throw new OAuthError('invalid_client_metadata', 'The request body is not valid JSON');
  }
}

function formBody(event: APIGatewayProxyEventV2): string {
  const text = bodyText(event, MAX_BODY_BYTES);
  if (text === null) {
    throw new OAuthError('invalid_request', `The request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  return text;
}

export function requestPath(event: APIGatewayProxyEventV2): string {
  return event.rawPath ?? event.requestContext?.http?.path ?? '/';
}
