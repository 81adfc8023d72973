import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface ReceivedRequest<B = Record<string, unknown>> {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: B;
}

export interface ScriptedServer<B> {
  baseUrl: string;
  /** The replies still to give, in order. */
  replies: ScriptedReply[];
  /** Every request since the last reset, oldest first (the same array throughout). */
  received: ReceivedRequest<B>[];
  /** Forgets the replies still to give and the requests received. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that answers each request with the next scripted reply (500 when
 * the script is used up) and keeps every JSON request: the provider side of adapter tests.
 */
export async function startScriptedServer<B = Record<string, unknown>>(): Promise<ScriptedServer<B>> {
  const received: ReceivedRequest<B>[] = [];
  const scripted: ScriptedServer<B> = {
    baseUrl: '',
    replies: [],
    received,
    reset() {
      scripted.replies = [];
      received.length = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as B,
      });
      const reply = scripted.replies.shift() ?? {
        status: 500,
        body: '{"error":{"message":"no reply scripted"}}',
      };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  scripted.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return scripted;
}
