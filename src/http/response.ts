import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export function textResponse(
  statusCode: number,
  body: string,
  contentType: string,
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' }, body };
}

export function emptyResponse(statusCode = 204): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'Cache-Control': 'no-store' } };
}
