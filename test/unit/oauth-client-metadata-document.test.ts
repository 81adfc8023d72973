import { describe, expect, it, vi } from 'vitest';
import {
  ClientMetadataFetcher,
  isNonPublicAddress,
  type Lookup,
  MAX_DOCUMENT_BYTES,
} from '../../src/oauth/client-metadata-document.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import type { PinnedGet } from '../../src/oauth/pinned-request.ts';

const CLIENT_ID = 'https://client.example.com/oauth/metadata.json';
const goodDocument = {
  client_id: CLIENT_ID,
  client_name: 'Example MCP client',
  redirect_uris: ['http://127.0.0.1/callback', 'https://client.example.com/callback'],
  token_endpoint_auth_method: 'none',
};

type Fetch = PinnedGet;

function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json' },
    ...init,
  });
}

function fetcher(fetch: Fetch, lookup: Lookup = async () => ['93.184.215.14'], now = () => 1_000_000) {
  return new ClientMetadataFetcher({ get: fetch, lookup, now, timeoutMs: 200 });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).error).toBe('invalid_client');
  return (error as OAuthError).description;
}

describe('Client ID Metadata Documents', () => {
  it('fetches the document from the address it checked and uses its name and redirect URIs, asking for JSON', async () => {
    const fetch = vi.fn<Fetch>(async () => json(goodDocument));
    const client = await fetcher(fetch).resolve(CLIENT_ID);
    expect(client).toMatchObject({
      client_id: CLIENT_ID,
      client_name: 'Example MCP client',
      redirect_uris: goodDocument.redirect_uris,
      source: 'metadata_document',
    });
    const [url, address, init] = fetch.mock.calls[0] ?? [];
    expect(String(url)).toBe(CLIENT_ID);
    expect(address).toBe('93.184.215.14');
    expect(new Headers(init?.headers).get('accept')).toBe('application/json');
  });

  it('falls back to the next checked address when the first cannot be reached, and never to an unchecked one', async () => {
    const fetch = vi.fn<Fetch>(async (_url, address) => {
      if (address === '2606:2800:21f:cb07:6820:80da:af6b:8b2c') throw new Error('connect ENETUNREACH');
      return json(goodDocument);
    });
    const lookup: Lookup = async () => ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '93.184.215.14'];
    expect(await fetcher(fetch, lookup).resolve(CLIENT_ID)).toMatchObject({ client_id: CLIENT_ID });
    expect(fetch.mock.calls.map(([, address]) => address)).toEqual([
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      '93.184.215.14',
    ]);
    const unreachable = vi.fn<Fetch>(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    expect(await refusal(fetcher(unreachable, lookup).resolve(CLIENT_ID))).toMatch(/could not be fetched/);
    expect(unreachable).toHaveBeenCalledTimes(2);
  });

  it('caches a document briefly, then fetches it again', async () => {
    let now = 1_000_000;
    const fetch = vi.fn<Fetch>(async () => json(goodDocument));
    const documents = fetcher(fetch, undefined, () => now);
    await documents.resolve(CLIENT_ID);
    await documents.resolve(CLIENT_ID);
    expect(fetch).toHaveBeenCalledTimes(1);
    now += 301_000;
    await documents.resolve(CLIENT_ID);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('follows an https redirect but refuses one to http', async () => {
    const moved = 'https://cdn.example.com/metadata.json';
    const follows = vi.fn<Fetch>(async (url) =>
      String(url) === CLIENT_ID
        ? new Response(null, { status: 302, headers: { location: moved } })
        : json(goodDocument),
    );
    await expect(fetcher(follows).resolve(CLIENT_ID)).resolves.toMatchObject({ client_id: CLIENT_ID });
    expect(follows).toHaveBeenCalledTimes(2);

    const downgrade = vi.fn<Fetch>(
      async () =>
        new Response(null, { status: 301, headers: { location: 'http://client.example.com/m.json' } }),
    );
    expect(await refusal(fetcher(downgrade).resolve(CLIENT_ID))).toMatch(/not https/);
  });

  it('resolves and checks every redirect hop, and connects each to the address it checked', async () => {
    const moved = 'https://internal.example.com/metadata.json';
    const get = vi.fn<Fetch>(async () => new Response(null, { status: 302, headers: { location: moved } }));
    const byHost = async (host: string) =>
      host === 'internal.example.com' ? ['10.1.2.3'] : ['93.184.215.14'];
    expect(await refusal(fetcher(get, byHost).resolve(CLIENT_ID))).toMatch(/private/);
    expect(get).toHaveBeenCalledTimes(1);
    expect(get.mock.calls[0]?.[1]).toBe('93.184.215.14');
  });

  it('gives up after three redirects', async () => {
    const loop = vi.fn<Fetch>(
      async () =>
        new Response(null, { status: 302, headers: { location: 'https://client.example.com/again' } }),
    );
    expect(await refusal(fetcher(loop).resolve(CLIENT_ID))).toMatch(/redirects too often/);
    expect(loop).toHaveBeenCalledTimes(4);
  });

  it('refuses a document larger than the cap, declared or streamed', async () => {
    const big = { ...goodDocument, padding: 'x'.repeat(MAX_DOCUMENT_BYTES) };
    expect(await refusal(fetcher(async () => json(big)).resolve(CLIENT_ID))).toMatch(/larger than/);
    const undeclared = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(JSON.stringify(big)));
            controller.close();
          },
        }),
        { status: 200 },
      );
    expect(await refusal(fetcher(undeclared).resolve(CLIENT_ID))).toMatch(/larger than/);
  });

  it('times out on a server that does not answer', async () => {
    const hang: Fetch = (_url, _address, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    expect(await refusal(fetcher(hang).resolve(CLIENT_ID))).toMatch(/did not answer/);
  });

  it('refuses hosts with private, loopback or link-local addresses', async () => {
    const fetch = vi.fn<Fetch>(async () => json(goodDocument));
    for (const address of ['10.0.0.7', '127.0.0.1', '169.254.169.254', '192.168.1.1', '::1', 'fd00::1']) {
      expect(await refusal(fetcher(fetch, async () => [address]).resolve(CLIENT_ID))).toMatch(/private/);
    }
    expect(await refusal(fetcher(fetch).resolve('https://127.0.0.1/metadata.json'))).toMatch(/private/);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses client IDs that are not https URLs with a path', async () => {
    const fetch = vi.fn<Fetch>(async () => json(goodDocument));
    expect(await refusal(fetcher(fetch).resolve('http://client.example.com/m.json'))).toMatch(/https/);
    expect(await refusal(fetcher(fetch).resolve('https://client.example.com/'))).toMatch(/path/);
    expect(await refusal(fetcher(fetch).resolve('https://client.example.com/a/../m.json'))).toMatch(
      /segments/,
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses a document that names another client_id, a secret-based client or a bad redirect URI', async () => {
    const serve = (body: unknown) => fetcher(async () => json(body)).resolve(CLIENT_ID);
    expect(await refusal(serve({ ...goodDocument, client_id: 'https://evil.example.com/m.json' }))).toMatch(
      /its own URL/,
    );
    expect(
      await refusal(serve({ ...goodDocument, token_endpoint_auth_method: 'client_secret_basic' })),
    ).toMatch(/public client/);
    expect(await refusal(serve({ ...goodDocument, redirect_uris: ['javascript:alert(1)'] }))).toMatch(
      /redirect URI/,
    );
    expect(await refusal(serve({ ...goodDocument, redirect_uris: [] }))).toMatch(/redirect_uris/);
    expect(await refusal(serve(['not', 'an', 'object']))).toMatch(/object/);
  });

  it('reads application_type from the document, or from its redirect URIs, and refuses one they do not suit', async () => {
    const serve = (body: unknown) => fetcher(async () => json(body)).resolve(CLIENT_ID);
    expect((await serve(goodDocument)).application_type).toBe('native');
    const web = { ...goodDocument, redirect_uris: ['https://client.example.com/callback'] };
    expect((await serve(web)).application_type).toBe('web');
    expect((await serve({ ...web, application_type: 'web' })).application_type).toBe('web');
    expect(await refusal(serve({ ...goodDocument, application_type: 'web' }))).toMatch(
      /does not suit a web application/,
    );
    expect(await refusal(serve({ ...goodDocument, application_type: 'desktop' }))).toMatch(/web" or "native/);
  });

  it('refuses answers that are not 200 or not JSON', async () => {
    expect(
      await refusal(fetcher(async () => new Response('nope', { status: 404 })).resolve(CLIENT_ID)),
    ).toMatch(/HTTP 404/);
    expect(
      await refusal(fetcher(async () => new Response('<html>', { status: 200 })).resolve(CLIENT_ID)),
    ).toMatch(/not JSON/);
  });

  it('classifies addresses as public or not', () => {
    for (const address of [
      '0.0.0.0',
      '100.64.0.1',
      '172.16.0.1',
      '224.0.0.1',
      '::',
      'fe80::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
  });
});
