import { describe, expect, it } from 'vitest';
import { ClientMetadataFetcher } from '../../src/oauth/client-metadata-document.ts';
import { ClientDirectory, registerClient } from '../../src/oauth/clients.ts';
import { OAuthError } from '../../src/oauth/errors.ts';
import type { OAuthClient, OAuthStore } from '../../src/oauth/store.ts';

const ISSUER = 'https://notes.example.com';

function memoryStore(): OAuthStore & { clients: Map<string, OAuthClient> } {
  const clients = new Map<string, OAuthClient>();
  return {
    clients,
    putClient: async (client: OAuthClient) => {
      clients.set(client.client_id, client);
    },
    getClient: async (id: string) => clients.get(id) ?? null,
  } as unknown as OAuthStore & { clients: Map<string, OAuthClient> };
}

async function refusal(metadata: unknown): Promise<OAuthError> {
  const error = await registerClient(memoryStore(), metadata, 0, ISSUER).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return error as OAuthError;
}

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client and answers with its metadata, without a secret', async () => {
    const store = memoryStore();
    const registered = await registerClient(
      store,
      {
        client_name: '  Claude\u0007 Desktop ',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        logo_uri: 'https://example.com/logo.png',
      },
      1_750_000_000_000,
      ISSUER,
    );
    expect(registered).toEqual({
      client_id: expect.any(String),
      client_id_issued_at: 1_750_000_000,
      client_name: 'Claude Desktop',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'notes:read notes:process',
      application_type: 'native',
    });
    expect(registered).not.toHaveProperty('client_secret');
    expect(store.clients.get(registered.client_id)?.redirect_uris).toEqual(['http://127.0.0.1/callback']);
  });

  it('registers the scope the client asked for, in canonical order, and keeps it as its default', async () => {
    const store = memoryStore();
    const registered = await registerClient(
      store,
      { redirect_uris: ['http://127.0.0.1/callback'], scope: 'notes:process notes:read notes:read' },
      0,
      ISSUER,
    );
    expect(registered.scope).toBe('notes:read notes:process');
    expect(store.clients.get(registered.client_id)?.scope).toBe('notes:read notes:process');
  });

  it('answers a client that asks for no scope (or an empty one) with the least-privilege default', async () => {
    for (const scope of [undefined, '', '  ']) {
      const registered = await registerClient(
        memoryStore(),
        { redirect_uris: ['http://127.0.0.1/callback'], ...(scope === undefined ? {} : { scope }) },
        0,
        ISSUER,
      );
      expect(registered.scope).toBe('notes:read notes:process');
    }
  });

  it.each(['client_secret_post', 'client_secret_basic', 'private_key_jwt'])(
    'registers a client asking for %s as the public client it is: none, and no secret (RFC 7591 section 3.2.1)',
    async (method) => {
      const registered = await registerClient(
        memoryStore(),
        { redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], token_endpoint_auth_method: method },
        0,
        ISSUER,
      );
      expect(registered.token_endpoint_auth_method).toBe('none');
      expect(registered).not.toHaveProperty('client_secret');
    },
  );

  it('leaves out grant types it does not support, such as the device code grant VS Code asks for', async () => {
    const registered = await registerClient(
      memoryStore(),
      {
        redirect_uris: ['http://127.0.0.1/'],
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      },
      0,
      ISSUER,
    );
    expect(registered.grant_types).toEqual(['authorization_code', 'refresh_token']);
    const codeOnly = await registerClient(
      memoryStore(),
      { redirect_uris: ['http://127.0.0.1/'], grant_types: ['client_credentials', 'authorization_code'] },
      0,
      ISSUER,
    );
    expect(codeOnly.grant_types).toEqual(['authorization_code']);
  });

  it("registers Cursor's three redirect URIs, its cursor:// app scheme among them", async () => {
    const uris = [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'http://localhost:8787/callback',
    ];
    const registered = await registerClient(memoryStore(), { redirect_uris: uris }, 0, ISSUER);
    expect(registered.redirect_uris).toEqual(uris);
  });

  it('refuses bad redirect URIs with invalid_redirect_uri, naming the one at fault', async () => {
    for (const uris of [
      undefined,
      [],
      ['http://app.example.com/cb'],
      ['https://ok.example.com/cb', 'https://app.example.com/cb#x'],
      ['javascript:alert(1)'],
      Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`),
    ]) {
      const error = await refusal({ redirect_uris: uris });
      expect(error.error).toBe('invalid_redirect_uri');
    }
    expect((await refusal({ redirect_uris: ['https://ok.example.com/cb', 'data:,x'] })).description).toBe(
      'redirect_uris[1] ("data:,x") must not use the data: scheme',
    );
  });

  it('refuses unknown auth methods, grants without authorization_code and other response types with invalid_client_metadata', async () => {
    const redirect_uris = ['https://app.example.com/cb'];
    for (const metadata of [
      { redirect_uris, token_endpoint_auth_method: 'magic' },
      { redirect_uris, token_endpoint_auth_method: 7 },
      { redirect_uris, grant_types: ['client_credentials'] },
      { redirect_uris, grant_types: 'authorization_code' },
      { redirect_uris, grant_types: ['authorization_code', 7] },
      { redirect_uris, grant_types: ['refresh_token'] },
      { redirect_uris, response_types: ['token'] },
      { redirect_uris, client_name: 42 },
      { redirect_uris, scope: 'notes:read admin' },
    ]) {
      expect((await refusal(metadata)).error).toBe('invalid_client_metadata');
    }
    expect((await refusal(['not an object'])).error).toBe('invalid_client_metadata');
  });

  it('records the application_type a client declares, web or native, and returns it', async () => {
    const store = memoryStore();
    const native = await registerClient(
      store,
      { redirect_uris: ['http://127.0.0.1/cb', 'com.example.app:/oauth'], application_type: 'native' },
      0,
      ISSUER,
    );
    expect(native.application_type).toBe('native');
    expect(store.clients.get(native.client_id)?.application_type).toBe('native');
    const web = await registerClient(
      store,
      { redirect_uris: ['https://app.example.com/cb'], application_type: 'web' },
      0,
      ISSUER,
    );
    expect(web.application_type).toBe('web');
  });

  it("registers a native client whose https redirect URIs sit beside loopback or app-scheme ones, as the MCP SDK declares Cursor's", async () => {
    const redirect_uris = [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'http://localhost:8787/callback',
    ];
    const registered = await registerClient(
      memoryStore(),
      { redirect_uris, application_type: 'native' },
      0,
      ISSUER,
    );
    expect(registered).toMatchObject({ redirect_uris, application_type: 'native' });
  });

  it('without application_type (MCP 2025-11-25 clients) registers as before and records what the redirect URIs show', async () => {
    const register = (redirect_uris: string[]) =>
      registerClient(memoryStore(), { redirect_uris }, 0, ISSUER).then((client) => client.application_type);
    expect(await register(['https://claude.ai/api/mcp/auth_callback'])).toBe('web');
    expect(await register(['http://localhost:8787/callback'])).toBe('native');
    expect(await register(['https://www.cursor.com/cb', 'cursor://anysphere.cursor-mcp/cb'])).toBe('native');
  });

  it('refuses redirect URIs that do not suit the declared application_type, and unknown types', async () => {
    for (const [application_type, redirect_uris] of [
      ['native', ['https://app.example.com/cb']],
      ['native', ['https://app.example.com/cb', 'https://other.example.com/cb']],
      ['web', ['http://127.0.0.1/cb']],
      ['web', ['https://localhost/cb']],
      ['web', ['https://app.example.com/cb', 'com.example.app:/oauth']],
    ] as const) {
      const error = await refusal({ redirect_uris, application_type });
      expect(error.error).toBe('invalid_redirect_uri');
      expect(error.description).toMatch(new RegExp(`not suit a ${application_type} application`));
    }
    for (const application_type of ['browser', 7, null]) {
      const error = await refusal({ redirect_uris: ['https://app.example.com/cb'], application_type });
      expect(error.error).toBe('invalid_client_metadata');
    }
  });

  it('binds a registered client to the issuer it registered with', async () => {
    const store = memoryStore();
    const { client_id } = await registerClient(store, { redirect_uris: ['http://127.0.0.1/cb'] }, 0, ISSUER);
    expect(store.clients.get(client_id)?.issuer).toBe(ISSUER);
    const directory = new ClientDirectory(store, new ClientMetadataFetcher());
    expect((await directory.find(client_id, ISSUER))?.client_id).toBe(client_id);
    expect(await directory.find(client_id, 'https://other.example.com')).toBeNull();
  });
});
