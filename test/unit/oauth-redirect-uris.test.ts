import { describe, expect, it } from 'vitest';
import {
  checkRedirectUri,
  isRegisteredRedirectUri,
  redirectsAutomatically,
  redirectUriMatches,
} from '../../src/oauth/redirect-uris.ts';

describe('the redirect URI policy at registration', () => {
  it.each([
    ['https://app.example.com/callback', 'https'],
    ['https://app.example.com/cb?tenant=1', 'https'],
    ['http://127.0.0.1/callback', 'loopback'],
    ['http://127.0.0.1:33418/callback', 'loopback'],
    ['http://[::1]:8080/cb', 'loopback'],
    ['http://localhost:6274/oauth/callback', 'loopback'],
    ['com.example.app:/oauth/callback', 'private-use'],
    ['com.example.app://callback', 'private-use'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'private-use'],
    ['vscode://vscode.github-authentication/did-authenticate', 'private-use'],
    ['claude://claude.ai/oauth/callback', 'private-use'],
  ])('accepts %s as a %s redirect URI', (uri, kind) => {
    expect(checkRedirectUri(uri)).toEqual({ ok: true, kind });
  });

  it.each([
    ['http://app.example.com/callback', 'must use https'],
    ['http://127.0.0.2/callback', 'must use https'],
    ['http://localhost.evil.com/cb', 'must use https'],
    ['https://app.example.com/cb#frag', 'fragment'],
    ['https://app.example.com/cb#', 'fragment'],
    ['http://127.0.0.1:8080/cb#x', 'fragment'],
    ['javascript:alert(1)', 'javascript'],
    ['JavaScript://%0aalert(1)', 'javascript'],
    ['data:text/html,<script>alert(1)</script>', 'data'],
    ['file:///etc/passwd', 'file'],
    ['vbscript:msgbox', 'vbscript'],
    ['blob:https://app.example.com/uuid', 'blob'],
    ['myapp:/callback', 'not a known'],
    ['ms-settings://x/', 'not a known'],
    ['steam://run/1', 'not a known'],
    ['x-safari-https://evil.example/cb', 'not a known'],
    ['cursor:///oauth/callback', 'without a host'],
    ['https-app://app.example.com/cb', 'look-alike'],
    ['http.example.com:/cb', 'look-alike'],
    ['cursor://user:pass@anysphere.cursor-mcp/cb', 'user information'],
    ['cursor://anysphere.cursor-mcp/cb#x', 'fragment'],
    ['intent://scan/#Intent;scheme=zxing;end', 'fragment'],
    ['intent://scan/', 'intent'],
    ['ms-msdt:/id PCWDiagnostic', 'whitespace'],
    ['ms-msdt:/id', 'ms-msdt'],
    ['about:blank', 'about'],
    ['ws://127.0.0.1/cb', 'ws'],
    ['https://user:pass@app.example.com/cb', 'user information'],
    ['/relative/callback', 'absolute'],
    ['https://app.example.com/a b', 'whitespace'],
    ['https://app.example.com/\u0000', 'control'],
    ['', 'non-empty'],
    [`https://app.example.com/${'a'.repeat(2000)}`, 'at most'],
  ])('refuses %s', (uri, reason) => {
    const check = checkRedirectUri(uri);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('refuses values that are not strings', () => {
    expect(checkRedirectUri(42).ok).toBe(false);
    expect(checkRedirectUri(null).ok).toBe(false);
  });
});

describe('matching the redirect URI of an authorization request', () => {
  it('matches https and private-use URIs only exactly', () => {
    expect(redirectUriMatches('https://app.example.com/cb', 'https://app.example.com/cb')).toBe(true);
    expect(redirectUriMatches('https://app.example.com/cb', 'https://app.example.com/cb/')).toBe(false);
    expect(redirectUriMatches('https://app.example.com/cb', 'https://app.example.com:8443/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example.com/cb', 'https://app.example.com/cb?x=1')).toBe(false);
    expect(redirectUriMatches('https://app.example.com/cb', 'https://APP.example.com/cb')).toBe(false);
    expect(redirectUriMatches('com.example.app:/cb', 'com.example.app:/cb')).toBe(true);
    expect(redirectUriMatches('com.example.app:/cb', 'com.example.app:/other')).toBe(false);
    const cursor = 'cursor://anysphere.cursor-mcp/oauth/callback';
    expect(redirectUriMatches(cursor, cursor)).toBe(true);
    expect(redirectUriMatches(cursor, 'cursor://anysphere.cursor-mcp/oauth/callback/')).toBe(false);
    expect(redirectUriMatches(cursor, 'cursor://evil.example/oauth/callback')).toBe(false);
    expect(redirectUriMatches(cursor, `${cursor}?next=1`)).toBe(false);
    expect(redirectUriMatches(cursor, 'CURSOR://anysphere.cursor-mcp/oauth/callback')).toBe(false);
  });

  it('matches loopback URIs on any port, but not another path, query, host or scheme', () => {
    const registered = 'http://127.0.0.1/callback';
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53682/callback')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:3000/callback', 'http://127.0.0.1:4000/callback')).toBe(true);
    expect(redirectUriMatches('http://[::1]/cb', 'http://[::1]:9999/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost/cb', 'http://localhost:6274/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53682/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53682/callback?x=1')).toBe(false);
    expect(redirectUriMatches(registered, 'http://localhost:53682/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'https://127.0.0.1:53682/callback')).toBe(false);
  });

  it('refuses a requested URI that breaks the policy even if it would otherwise match', () => {
    expect(isRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:80/cb#frag')).toBe(false);
    expect(isRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:8080/cb')).toBe(true);
    expect(isRegisteredRedirectUri(['https://a.example/cb'], 'https://b.example/cb')).toBe(false);
  });
});

describe('errors before approval', () => {
  it('are redirected automatically only to https and loopback URIs, never to an app scheme', () => {
    expect(redirectsAutomatically('https://app.example.com/cb')).toBe(true);
    expect(redirectsAutomatically('http://127.0.0.1:8080/cb')).toBe(true);
    expect(redirectsAutomatically('cursor://anysphere.cursor-mcp/oauth/callback')).toBe(false);
    expect(redirectsAutomatically('com.example.app:/oauth/callback')).toBe(false);
  });
});
