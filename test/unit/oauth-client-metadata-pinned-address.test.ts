import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientMetadataFetcher } from '../../src/oauth/client-metadata-document.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import { pinnedGet } from '../../src/oauth/pinned-request.ts';

/**
 * The Client ID Metadata Document fetch against a real HTTPS listener on this machine: the request
 * goes to the address that was checked, never to one the name resolves to later (DNS rebinding).
 */

let dir: string;
let cert: string;
let server: Server;
let port: number;
let connections = 0;
const seen: { host: string | undefined; servername: string | false | null | undefined }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cimd-tls-'));
  // A self-signed certificate for client.example.com and localhost (openssl: a Debian base package).
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=client.example.com',
      '-addext',
      'subjectAltName=DNS:client.example.com,DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (request, response) => {
    seen.push({ host: request.headers.host, servername: (request.socket as TLSSocket).servername });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: true }));
  });
  server.on('connection', () => {
    connections += 1;
  });
  // Every interface, so 127.0.0.1 and ::1 (where `localhost` may lead) both reach it.
  await new Promise<void>((resolve) => server.listen(0, resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the Client ID Metadata Document fetch and DNS rebinding', () => {
  it('never reaches a listener on 127.0.0.1 when the name resolved to a public address at the check and to 127.0.0.1 afterwards', async () => {
    // `localhost` resolves to this machine through the system too: a fetch that resolved the name
    // again (as `fetch` does) would land on the listener whatever the injected resolver says.
    const clientId = `https://localhost:${port}/metadata.json`;
    let lookups = 0;
    const rebinding = async () => {
      lookups += 1;
      // TEST-NET-3 (RFC 5737): public-looking, never routed.
      return lookups === 1 ? ['203.0.113.1'] : ['127.0.0.1'];
    };
    const before = connections;
    const documents = new ClientMetadataFetcher({
      get: pinnedGet({ ca: cert }),
      lookup: rebinding,
      timeoutMs: 500,
    });
    const error = await documents.resolve(clientId).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).error).toBe('invalid_client');
    expect(connections).toBe(before);
    expect(lookups).toBe(1);
  });

  it("connects to the checked address, naming the URL's host in SNI and the Host header", async () => {
    const response = await pinnedGet({ ca: cert })(
      new URL(`https://client.example.com:${port}/metadata.json`),
      '127.0.0.1',
      { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toEqual({ host: `client.example.com:${port}`, servername: 'client.example.com' });
  });

  it('still verifies the certificate: an untrusted one, or one for another name, is refused', async () => {
    const get = (host: string, ca?: string) =>
      pinnedGet(ca ? { ca } : {})(new URL(`https://${host}:${port}/metadata.json`), '127.0.0.1', {
        signal: AbortSignal.timeout(5000),
        headers: {},
      });
    await expect(get('client.example.com')).rejects.toThrow(/self.signed|certificate/i);
    await expect(get('other.example.com', cert)).rejects.toThrow(/altnames|does not match|certificate/i);
  });
});
