import { describe, expect, it } from 'vitest';
import { acceptsRedirectUri } from '../../src/oauth/clients.ts';
import { webAppClient } from '../../src/oauth/first-party.ts';

describe('the first-party web app client', () => {
  const client = webAppClient(['http://127.0.0.1:8787', 'http://localhost:8787'], 'https://app.example.com');

  it('is public, asks for every scope but permanent deletion, and returns to /app/callback on each of its origins', () => {
    expect(client).toMatchObject({
      client_id: 'notes-web',
      source: 'first_party',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'notes:read notes:write notes:process',
      redirect_uris: [
        'http://127.0.0.1:8787/app/callback',
        'http://localhost:8787/app/callback',
        'https://app.example.com/app/callback',
      ],
    });
  });

  it('accepts its redirect URIs exactly: no other loopback port, path or query', () => {
    expect(acceptsRedirectUri(client, 'http://127.0.0.1:8787/app/callback')).toBe(true);
    expect(acceptsRedirectUri(client, 'http://127.0.0.1:9999/app/callback')).toBe(false);
    expect(acceptsRedirectUri(client, 'http://127.0.0.1:8787/app/callback?x=1')).toBe(false);
    expect(acceptsRedirectUri(client, 'https://app.example.com/app/other')).toBe(false);
  });

  it('has no extra origin when the app is served by the service itself', () => {
    expect(webAppClient(['https://notes.example.com']).redirect_uris).toEqual([
      'https://notes.example.com/app/callback',
    ]);
  });
});
