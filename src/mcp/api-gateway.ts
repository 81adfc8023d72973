import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * API Gateway (HTTP API, payload 2.0) events to Web `Request`s and Web `Response`s back to Lambda
 * results, for handlers written against the Web standard (the MCP SDK's Streamable HTTP transport).
 */
export function toWebRequest(event: APIGatewayProxyEventV2): Request {
  const method = event.requestContext.http.method.toUpperCase();
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  // Payload 2.0 moves cookies out of the headers.
  if (event.cookies && event.cookies.length > 0) headers.set('cookie', event.cookies.join('; '));
  const host = event.headers?.host ?? event.requestContext.domainName;
  const protocol = event.headers?.['x-forwarded-proto'] ?? 'https';
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const url = `${protocol}://${host}${event.rawPath}${query}`;
  const hasBody = event.body !== undefined && method !== 'GET' && method !== 'HEAD';
  const body = hasBody
    ? event.isBase64Encoded
      ? new Uint8Array(Buffer.from(event.body ?? '', 'base64'))
      : (event.body ?? '')
    : null;
  return new Request(url, { method, headers, body });
}

/** The response as a Lambda result: status, headers (cookies apart, as payload 2.0 wants) and text body. */
export async function toApiGatewayResult(response: Response): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  const body = await response.text();
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    ...(body.length > 0 ? { body } : {}),
  };
}
