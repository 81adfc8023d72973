import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiLambdaHandler } from '../http/api-handler.ts';
import { jsonResponse } from '../http/response.ts';
import { logger } from '../logging.ts';
import { type LazyEncodedBodies, negotiateCoding } from './content-encoding.ts';
import { lambdaContext } from './lambda-context.ts';
import type { Probes } from './readiness.ts';

/** API Gateway's own payload limit; larger requests never reach a function there either. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export interface LocalRoute {
  operationId: string;
  method: string;
  path: string;
  handler: ApiLambdaHandler;
}

export interface StaticFile {
  contentType: string;
  body: string | Buffer;
  /** Sent besides Content-Type and Content-Length (e.g. the web app's security and cache headers). */
  headers?: Record<string, string>;
  /** The body compressed (content-encoding.ts), sent to clients that accept it. */
  encoded?: LazyEncodedBodies;
}

interface CompiledRoute extends LocalRoute {
  pattern: RegExp;
  paramNames: string[];
  /** Has a `{name+}` parameter: a catch-all (the REST preflight), which names no resource. */
  greedy: boolean;
}

/**
 * Serves the REST API locally the way API Gateway (HTTP API, payload 2.0) does on AWS: each request
 * becomes an APIGatewayProxyEventV2 for the handler of its route, and the handler's result becomes
 * the response. Same handlers, same events, no AWS.
 */
export function createApiServer(
  routes: LocalRoute[],
  staticFiles: Record<string, StaticFile>,
  probes: Probes = {},
  started: () => boolean = () => true,
): Server {
  const compiled = routes.map(compileRoute);
  return createServer((req, res) => {
    handle(req, res, compiled, staticFiles, probes, started).catch((error: unknown) => {
      logger.error('local adapter failure', {
        error: error instanceof Error ? error.message : String(error),
      });
      if (!res.headersSent) send(res, jsonResponse(500, { detail: 'Internal error' }));
      else res.end();
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  routes: CompiledRoute[],
  staticFiles: Record<string, StaticFile>,
  probes: Probes,
  started: () => boolean,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const probe = probes[url.pathname];
  // HEAD answers as GET, without the body: uptime checkers and load balancers often probe with HEAD.
  if (probe && (method === 'GET' || method === 'HEAD')) {
    return send(res, await probe(), {}, method === 'HEAD');
  }
  // The server listens before the runtime has finished starting (its own address is part of the
  // configuration it completes): until then a request would meet a half-made configuration.
  if (!started()) {
    return send(res, detail(503, 'The service is starting; retry in a moment.'), { 'Retry-After': '1' });
  }
  const file = staticFiles[url.pathname];
  if (file && (method === 'GET' || method === 'HEAD')) {
    const coding = file.encoded ? negotiateCoding(req.headers['accept-encoding']) : null;
    const body = coding && file.encoded ? file.encoded.get()[coding] : file.body;
    res.writeHead(200, {
      ...file.headers,
      'Content-Type': file.contentType,
      'Content-Length': Buffer.byteLength(body),
      // Caches must keep the forms apart: the answer depends on Accept-Encoding.
      ...(file.encoded ? { Vary: 'Accept-Encoding' } : {}),
      ...(coding ? { 'Content-Encoding': coding } : {}),
    });
    res.end(method === 'HEAD' ? undefined : body);
    return;
  }

  const hit = findRoute(routes, method, url.pathname);
  if (!hit) {
    // A catch-all route does not make a path exist: an unknown path stays 404, whatever its method.
    const resources = routes.filter((route) => !route.greedy && route.pattern.test(url.pathname));
    if (resources.length > 0) {
      const allow = resources.map((route) => route.method).join(', ');
      return send(res, detail(405, `${method} is not allowed on ${url.pathname}`), { Allow: allow });
    }
    return send(res, detail(404, `No route for ${method} ${url.pathname}`));
  }
  const { route, match } = hit;

  const body = await readBody(req);
  if (body === null) return send(res, detail(413, `Request body is larger than ${MAX_REQUEST_BYTES} bytes`));
  const event = toEvent(req, url, method, route, match, body);
  const result = await route.handler(event, lambdaContext(route.operationId, event.requestContext.requestId));
  send(res, result);
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  route: CompiledRoute,
  match: RegExpExecArray,
  body: Buffer,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // Payload 2.0 moves cookies out of the headers, one entry per cookie, as API Gateway does.
  const cookies = (headers.cookie ?? '')
    .split(';')
    .map((cookie) => cookie.trim())
    .filter((cookie) => cookie.length > 0);
  delete headers.cookie;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const pathParameters: Record<string, string> = {};
  route.paramNames.forEach((name, i) => {
    pathParameters[name] = safeDecode(match[i + 1] ?? '');
  });
  const routeKey = `${route.method} ${route.path}`;
  const isText =
    body.length === 0 || /^(application\/(json|[a-z.+-]*\+json)|text\/)/i.test(headers['content-type'] ?? '');
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies.length > 0 ? { cookies } : {}),
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(route.paramNames.length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(body.length > 0 ? { body: body.toString(isText ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: !isText,
  };
}

/**
 * The first route of this method whose pattern matches, in table order (as before: the first match
 * wins). Only the routes of the request's method are tried: every request pays for this.
 */
function findRoute(
  routes: CompiledRoute[],
  method: string,
  path: string,
): { route: CompiledRoute; match: RegExpExecArray } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, match };
  }
  return undefined;
}

function compileRoute(route: LocalRoute): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      // `{name+}` is API Gateway's greedy parameter: the rest of the path, slashes included.
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      paramNames.push(param[1] as string);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), paramNames, greedy: route.path.includes('+}') };
}

/** Reads the body, or returns null once it exceeds the limit (the rest is discarded). */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) tooLarge = true;
    if (!tooLarge) chunks.push(chunk as Buffer);
  }
  return tooLarge ? null : Buffer.concat(chunks);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function detail(statusCode: number, message: string): APIGatewayProxyStructuredResultV2 {
  return jsonResponse(statusCode, { detail: message });
}

/** `headOnly`: the status and headers (Content-Length included) of the answer, without its body. */
function send(
  res: ServerResponse,
  result: APIGatewayProxyStructuredResultV2,
  extraHeaders: Record<string, string> = {},
  headOnly = false,
): void {
  const body =
    result.body === undefined
      ? undefined
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  const headers: Record<string, string | number | string[]> = { ...extraHeaders };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies?.length) headers['Set-Cookie'] = result.cookies;
  if (body) headers['Content-Length'] = body.length;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(headOnly ? undefined : body);
}
