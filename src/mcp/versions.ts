import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** The revision served per request, without a handshake (answered by the SDK's modern path). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Every revision this endpoint serves, newest first: 2026-07-28, then those negotiated by initialize. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * The SDK's `-32022` (a request naming a revision this server does not speak) lists only the
 * 2026 revisions of its per-request path. The endpoint also serves the 2025 revisions through
 * `initialize`, and the specification asks for the versions the server supports: the whole list
 * is given, as its example of a server serving both eras has it. Any other response passes as it is.
 */
export async function withLegacyVersionsListed(response: Response): Promise<Response> {
  if (response.status !== 400 || !response.headers.get('content-type')?.includes('json')) return response;
  const text = await response.text();
  const rebuilt = (body: string) =>
    new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  let message: { error?: { code?: unknown; data?: { supported?: unknown } } };
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return rebuilt(text);
  }
  const data = message.error?.data;
  if (message.error?.code !== UNSUPPORTED_PROTOCOL_VERSION || !Array.isArray(data?.supported)) {
    return rebuilt(text);
  }
  data.supported = [...new Set([...(data.supported as string[]), ...SERVED_PROTOCOL_VERSIONS])];
  return rebuilt(JSON.stringify(message));
}
