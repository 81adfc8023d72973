import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  status: number;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Close the connection without answering: a network failure after the request arrived. */
  drop?: boolean;
}

export interface ReceivedRequest<B = Record<string, unknown>> {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON; null when it is empty or not JSON (an audio upload, a GET). */
  body: B;
  raw: Buffer;
}

export interface ScriptedServer<B> {
  baseUrl: string;
  /** The replies still to give, in order (used when no `respond` function was given). */
  replies: ScriptedReply[];
  /** Every request since the last reset, oldest first (the same array throughout). */
  received: ReceivedRequest<B>[];
  /** Forgets the replies still to give and the requests received. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback for adapter and client tests: each request gets `respond(request)`,
 * or else the next scripted reply (500 when the script is used up); every request is kept.
 */
export async function startScriptedServer<B = Record<string, unknown>>(
  respond?: (request: ReceivedRequest<B>) => ScriptedReply,
): Promise<ScriptedServer<B>> {
  const received: ReceivedRequest<B>[] = [];
  const scripted: ScriptedServer<B> = {
    baseUrl: '',
    replies: [],
    received,
    reset() {
      scripted.replies = [];
      received.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const request: ReceivedRequest<B> = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: parseJson(raw) as B,
        raw,
      };
      received.push(request);
      const reply = respond?.(request) ??
        scripted.replies.shift() ?? { status: 500, body: '{"error":{"message":"no reply scripted"}}' };
      if (reply.drop) {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(
        reply.body === undefined
          ? ''
          : typeof reply.body === 'string'
            ? reply.body
            : JSON.stringify(reply.body),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  scripted.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return scripted;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}
