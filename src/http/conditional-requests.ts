import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { entityTagOf, matchesWeakly, parseTagCondition, type TagCondition } from '../domain/entity-tags.ts';
import { header } from './request.ts';
import { emptyResponse } from './response.ts';

/** The request's If-Match precondition, when it sent one (400 when it is not valid syntax). */
export function ifMatchOf(event: APIGatewayProxyEventV2): TagCondition | undefined {
  const value = header(event, 'if-match');
  return value === undefined ? undefined : parseTagCondition(value, 'If-Match');
}

/**
 * A read's response with the ETag of its body. When If-None-Match names that tag the client already
 * has this representation: 304 without the body (the work of building it is done either way, only
 * the transfer is saved).
 */
export function withEntityTag(
  event: APIGatewayProxyEventV2,
  response: APIGatewayProxyStructuredResultV2,
  ownTag?: string,
): APIGatewayProxyStructuredResultV2 {
  const tagged = withTag(response, ownTag);
  const tag = String(tagged.headers?.ETag);
  const value = header(event, 'if-none-match');
  if (value !== undefined && matchesWeakly(parseTagCondition(value, 'If-None-Match'), tag)) {
    const notModified = emptyResponse(304);
    return { ...notModified, headers: { ...notModified.headers, ETag: tag } };
  }
  return tagged;
}

/**
 * The response with the ETag of its body (the representation it carries): the digest of the body,
 * or a tag the representation's owner computed (a transcript's, src/domain/transcript-tags.ts).
 */
export function withTag(
  response: APIGatewayProxyStructuredResultV2,
  tag: string = entityTagOf(response.body ?? ''),
): APIGatewayProxyStructuredResultV2 {
  return { ...response, headers: { ...response.headers, ETag: tag } };
}
