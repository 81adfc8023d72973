import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The proxy's base URL, `http://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 7.6.1) are the proxy's own; content-length is set again. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
  'authorization',
]);

/**
 * A loopback reverse proxy that adds `Authorization: Bearer <token>` to every request and forwards it
 * to `target`: for clients that cannot authorize themselves, such as the MCP conformance suite.
 *
 * It stands in for the target as a transparent reverse proxy does: a Host or Origin that names the
 * proxy becomes the target's (the request was meant for the service), while any other Host or Origin
 * (a DNS-rebinding attacker's) is forwarded unchanged, so the service's own checks still decide.
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const targetUrl = new URL(target);
  let self: URL;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (!NOT_FORWARDED.has(name)) headers[name] = value;
      }
      headers.host = incoming.headers.host === self.host ? targetUrl.host : incoming.headers.host;
      if (incoming.headers.origin === self.origin) headers.origin = targetUrl.origin;
      headers.authorization = `Bearer ${token}`;
      headers['content-length'] = String(body.length);
      const forwarded = request(
        {
          hostname: targetUrl.hostname,
          port: targetUrl.port,
          method: incoming.method,
          path: incoming.url,
          headers,
        },
        (answer) => {
          const answerHeaders = { ...answer.headers };
          delete answerHeaders.connection;
          delete answerHeaders['keep-alive'];
          outgoing.writeHead(answer.statusCode ?? 502, answerHeaders);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', (error) => {
        outgoing.writeHead(502, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ detail: `Proxy could not reach ${target}: ${error.message}` }));
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    url: self.origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
