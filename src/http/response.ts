import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** JSON is UTF-8 (RFC 8259); saying so keeps clients that default to Latin-1 from misreading names. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Headers of every response of the API, MCP and OAuth endpoints: not cached (they carry account
 * data), and never sniffed into another type (a transcript that looks like HTML stays text).
 */
const BASE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

/** `headers` may override the base headers (public metadata sets its own Cache-Control). */
export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return textResponse(statusCode, JSON.stringify(body), JSON_CONTENT_TYPE, headers);
}

export function textResponse(
  statusCode: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...BASE_HEADERS, 'Content-Type': contentType, ...headers }, body };
}

export function emptyResponse(
  statusCode = 204,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...BASE_HEADERS, ...headers } };
}

/** The same response as a Web `Response`, for handlers written against the Web standard (MCP). */
export function toWebResponse(result: APIGatewayProxyStructuredResultV2): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(result.headers ?? {})) headers.set(name, String(value));
  return new Response(result.body ?? null, { status: result.statusCode ?? 200, headers });
}

/**
 * A Web `Response` made elsewhere (the MCP SDK's transport) with the base headers, and JSON labelled
 * UTF-8 like ours.
 */
export function withBaseHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(BASE_HEADERS)) headers.set(name, value);
  if (/^application\/json\s*(;|$)/i.test(headers.get('content-type') ?? '')) {
    headers.set('content-type', JSON_CONTENT_TYPE);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
