import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../domain/errors.ts';
import * as z from '../domain/zod-mini.ts';

/** JSON request bodies are small (titles, questions); audio never comes through here. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** Any zod schema: zod/mini's (src/http/schemas.ts) or the classic API's. */
type Schema = z.core.$ZodType;

export interface RequestSchemas {
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** The body may be left out entirely (then `body` is undefined); when sent it must validate. */
  bodyOptional?: boolean;
}

type Out<T> = T extends Schema ? z.output<T> : undefined;

export interface ParsedInput<S extends RequestSchemas> {
  params: Out<S['params']>;
  query: Out<S['query']>;
  body: Out<S['body']>;
}

export function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  // API Gateway v2 lower-cases header names.
  return event.headers?.[name.toLowerCase()];
}

export function parseInput<S extends RequestSchemas>(
  event: APIGatewayProxyEventV2,
  schemas: S,
): ParsedInput<S> {
  return {
    params: validate(schemas.params, event.pathParameters ?? {}, 'path') as Out<S['params']>,
    query: validate(schemas.query, event.queryStringParameters ?? {}, 'query') as Out<S['query']>,
    body: (schemas.body && !(schemas.bodyOptional && !event.body)
      ? validate(schemas.body, readJsonBody(event), 'body')
      : undefined) as Out<S['body']>,
  };
}

/** The request body as text (API Gateway base64-encodes some); null when it is over `maxBytes`. */
export function bodyText(event: APIGatewayProxyEventV2, maxBytes: number): string | null {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  return Buffer.byteLength(text, 'utf8') > maxBytes ? null : text;
}

function readJsonBody(event: APIGatewayProxyEventV2): unknown {
  const contentType = header(event, 'content-type');
  const text = bodyText(event, MAX_JSON_BODY_BYTES);
  if (text === null) {
    throw new PayloadTooLargeError(`Request body is larger than ${MAX_JSON_BODY_BYTES} bytes`);
  }
  if (text.length === 0) throw new BadRequestError('Request body is required (a JSON object)');
  if (!contentType || !/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new UnsupportedMediaTypeError('Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('Request body is not valid JSON');
  }
}

function validate(schema: Schema | undefined, value: unknown, where: string): unknown {
  if (!schema) return undefined;
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = [where, ...issue.path.map(String)].join('.');
    return `${path}: ${issue.message}`;
  });
  throw new BadRequestError(problems.join('; '));
}
