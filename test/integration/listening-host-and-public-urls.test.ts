import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { speechFixture } from '../support/fixtures.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';

/**
 * In a container the service listens on every interface (NOTES_LISTEN_HOST=0.0.0.0) and is reached
 * through published ports, at URLs that are not its listening address (NOTES_PUBLIC_URL,
 * NOTES_STORAGE_PUBLIC_URL). Here: the API's public URL is http://localhost:PORT and the object
 * store's is this machine's own non-loopback address, so a presigned upload that works shows both
 * that the store listens there and that the URL was signed for the Host the client sends.
 */
let service: RunningService;
let apiPort: number;
let storagePort: number;
let externalAddress: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate?.family === 'IPv4' && !candidate.internal);
  if (!address) throw new Error('this test needs a non-loopback IPv4 address on this machine');
  externalAddress = address.address;
  apiPort = await freePort();
  storagePort = await freePort();
  service = await startService({
    env: {
      PORT: String(apiPort),
      NOTES_STORAGE_PORT: String(storagePort),
      NOTES_LISTEN_HOST: '0.0.0.0',
      NOTES_PUBLIC_URL: `http://localhost:${apiPort}`,
      NOTES_STORAGE_PUBLIC_URL: `http://${externalAddress}:${storagePort}`,
    },
  });
}, 120_000);

afterAll(() => service?.stop());

describe('NOTES_LISTEN_HOST=0.0.0.0 with public URLs', () => {
  it('publishes the public URLs, and the OAuth metadata names the public API URL as its issuer', async () => {
    expect(service.info.api_url).toBe(`http://localhost:${apiPort}`);
    expect(service.info.storage_url).toBe(`http://${externalAddress}:${storagePort}`);
    const metadata = (await (
      await fetch(`http://localhost:${apiPort}/.well-known/oauth-authorization-server`)
    ).json()) as { issuer: string };
    expect(metadata.issuer).toBe(`http://localhost:${apiPort}`);
  });

  it('answers the API on a non-loopback address too', async () => {
    const response = await fetch(`http://${externalAddress}:${apiPort}/healthz`);
    expect(response.status).toBe(200);
  });

  it('hands out presigned upload URLs at the public storage URL, and an upload through one is stored', async () => {
    const { file, contentType } = await speechFixture('slt', 'wav');
    const bytes = await readFile(file);
    const noteId = randomUUID();
    const submitted = await fetch(`${service.baseUrl}/v1/notes/${noteId}/transcription`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Public URL', content_type: contentType, size_bytes: bytes.length }),
    });
    expect(submitted.status).toBe(202);
    const { upload } = (await submitted.json()) as {
      upload: { url: string; method: string; headers: Record<string, string> };
    };
    expect(upload.url.startsWith(`http://${externalAddress}:${storagePort}/`)).toBe(true);
    const put = () => fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });
    expect((await put()).status).toBe(200);
    // Stored once: the same URL cannot store it again.
    expect((await put()).status).toBe(412);
  });

  it('keeps the database and queue emulators on loopback only', async () => {
    for (const endpoint of [service.info.endpoints.dynamodb, service.info.endpoints.sqs]) {
      const { hostname, port } = new URL(endpoint);
      expect(hostname).toBe('127.0.0.1');
      expect(await accepts('127.0.0.1', Number(port))).toBe(true);
      expect(await accepts(externalAddress, Number(port))).toBe(false);
    }
  });
});

describe('a wrong listening or public URL setting', () => {
  it.each([
    ['NOTES_LISTEN_HOST', 'notes.example.com', /NOTES_LISTEN_HOST must be an IP address to listen on/],
    [
      'NOTES_PUBLIC_URL',
      'http://localhost:8787/notes',
      /NOTES_PUBLIC_URL must be an http\(s\) origin with no path/,
    ],
    ['NOTES_STORAGE_PUBLIC_URL', 'localhost:8788', /NOTES_STORAGE_PUBLIC_URL must be an http\(s\) origin/],
  ])('%s=%s stops the start with a sentence that names it', (name, value, message) => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'bin', 'local-server.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          PORT: '0',
          NOTES_STORAGE_PORT: '0',
          NOTES_DATA_DIR: '/nonexistent-never-made',
          [name]: value,
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^Cannot start the notes service: /m);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
