import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { oauthSettings, publicBaseUrls, settingsForHost } from '../../src/oauth/settings.ts';
import { generateSigningKey, loadSigningKey, publicSigningJwk } from '../../src/oauth/signing-key.ts';

const base = { NOTES_OAUTH_UPSTREAM: 'local' } as Config;

describe('OAuth configuration', () => {
  it('derives the issuer and the MCP resource from NOTES_PUBLIC_URL', () => {
    const settings = oauthSettings({
      ...base,
      NOTES_PUBLIC_URL: 'https://notes.example.com',
      NOTES_OAUTH_SIGNING_KEY: '{}',
    });
    expect(settings).toMatchObject({
      issuer: 'https://notes.example.com',
      resource: 'https://notes.example.com/mcp',
      upstream: { kind: 'local' },
    });
  });

  it('serves one public URL on AWS, and both loopback spellings of the port locally', () => {
    expect(publicBaseUrls('https://notes.example.com/')).toEqual(['https://notes.example.com']);
    expect(publicBaseUrls('http://127.0.0.1:8787')).toEqual([
      'http://127.0.0.1:8787',
      'http://localhost:8787',
    ]);
    expect(publicBaseUrls('http://localhost:8787')).toEqual([
      'http://localhost:8787',
      'http://127.0.0.1:8787',
    ]);
  });

  it("answers with the issuer and resource of the host a request reached; unknown hosts get the primary's", () => {
    const settings = oauthSettings({
      ...base,
      NOTES_PUBLIC_URL: 'http://127.0.0.1:8787',
      NOTES_OAUTH_SIGNING_KEY: '{}',
    });
    expect(settingsForHost(settings, 'localhost:8787')).toMatchObject({
      issuer: 'http://localhost:8787',
      resource: 'http://localhost:8787/mcp',
    });
    for (const host of ['127.0.0.1:8787', 'localhost:9999', 'evil.example', undefined]) {
      expect(settingsForHost(settings, host)).toMatchObject({
        issuer: 'http://127.0.0.1:8787',
        resource: 'http://127.0.0.1:8787/mcp',
      });
    }
    const aws = oauthSettings({
      ...base,
      NOTES_PUBLIC_URL: 'https://notes.example.com',
      NOTES_OAUTH_SIGNING_KEY: '{}',
    });
    expect(settingsForHost(aws, 'localhost:8787').issuer).toBe('https://notes.example.com');
  });

  it('says which variable is missing', () => {
    expect(() => oauthSettings(base)).toThrow(/NOTES_PUBLIC_URL is required/);
    expect(() => oauthSettings({ ...base, NOTES_PUBLIC_URL: 'https://n.example' })).toThrow(
      /needs a signing key: NOTES_OAUTH_KMS_KEY_ID .* or NOTES_OAUTH_SIGNING_KEY/,
    );
    expect(() =>
      oauthSettings({
        ...base,
        NOTES_PUBLIC_URL: 'https://n.example',
        NOTES_OAUTH_SIGNING_KEY: '{}',
        NOTES_OAUTH_UPSTREAM: 'oidc',
      }),
    ).toThrow(/NOTES_OIDC_ISSUER .* NOTES_OIDC_CLIENT_ID/);
  });

  it('reads the OIDC upstream, its secret optional', () => {
    const settings = oauthSettings({
      ...base,
      NOTES_PUBLIC_URL: 'https://n.example',
      NOTES_OAUTH_SIGNING_KEY: '{}',
      NOTES_OAUTH_UPSTREAM: 'oidc',
      NOTES_OIDC_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
      NOTES_OIDC_CLIENT_ID: 'client',
    });
    expect(settings.upstream).toEqual({
      kind: 'oidc',
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
      clientId: 'client',
      clientSecret: undefined,
    });
  });
});

describe('the signing key', () => {
  it('is generated as an EC P-256 private JWK whose kid is its thumbprint, and loads back', async () => {
    const json = await generateSigningKey();
    const jwk = JSON.parse(json) as Record<string, string>;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwk.d).toEqual(expect.any(String));
    const key = await loadSigningKey(json);
    expect(key.kid).toBe(jwk.kid);
    expect(key.publicJwk).not.toHaveProperty('d');
    expect(publicSigningJwk(json)).toEqual(key.publicJwk);
  });

  it('derives the same kid when the JWK has none', async () => {
    const { kid, ...withoutKid } = JSON.parse(await generateSigningKey()) as Record<string, string>;
    expect((await loadSigningKey(JSON.stringify(withoutKid))).kid).toBe(kid);
  });

  it('refuses a key that is not JSON, not P-256, public only or for another algorithm, without echoing it', async () => {
    const key = JSON.parse(await generateSigningKey()) as Record<string, string>;
    const { d: _d, ...publicOnly } = key;
    for (const [value, message] of [
      ['not json', /not valid JSON/],
      [JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y' }), /EC P-256/],
      [JSON.stringify({ ...key, crv: 'P-384' }), /EC P-256/],
      [JSON.stringify(publicOnly), /private JWK/],
      [JSON.stringify({ ...key, alg: 'HS256' }), /only ES256/],
    ] as const) {
      const error = await loadSigningKey(value).catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(key.d);
    }
  });
});
