/**
 * Content negotiation for /mcp. The server answers JSON only (no SSE), so what matters is whether a
 * client's Accept allows application/json. Streamable HTTP clients send
 * `application/json, text/event-stream`, but a client that accepts only JSON is served as well; one
 * whose Accept rules JSON out (only text/event-stream, text/html, `application/json;q=0`) gets 406.
 */

/** The Accept the SDK's transport insists on; it answers JSON all the same (enableJsonResponse). */
export const TRANSPORT_ACCEPT = 'application/json, text/event-stream';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/**
 * Whether `accept` allows application/json, as RFC 9110 12.5.1 reads it: no header allows anything;
 * otherwise the most specific matching range decides (application/json over application/* over
 * star/star), and q=0 means "not acceptable".
 */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  const matching = accept
    .split(',')
    .map(parseRange)
    .filter((range): range is MediaRange => range !== null)
    .filter(
      (range) =>
        (range.type === '*' && range.subtype === '*') ||
        (range.type === 'application' && (range.subtype === '*' || range.subtype === 'json')),
    );
  if (matching.length === 0) return false;
  const specificity = (range: MediaRange) => (range.subtype === 'json' ? 2 : range.type === '*' ? 0 : 1);
  const mostSpecific = Math.max(...matching.map(specificity));
  return matching.some((range) => specificity(range) === mostSpecific && range.q > 0);
}

function parseRange(text: string): MediaRange | null {
  const [mediaType = '', ...parameters] = text.split(';');
  const match = /^\s*([^\s/]+)\/([^\s/]+)\s*$/.exec(mediaType);
  if (!match) return null;
  let q = 1;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((part) => part.trim());
    if (name?.toLowerCase() === 'q') q = Number(value);
  }
  return {
    type: (match[1] as string).toLowerCase(),
    subtype: (match[2] as string).toLowerCase(),
    q: Number.isFinite(q) ? q : 0,
  };
}
