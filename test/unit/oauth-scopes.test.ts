import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../src/oauth/errors.ts';
import {
  DEFAULT_SCOPES,
  narrowScopes,
  parseScopes,
  SUPPORTED_SCOPES,
  tickedByDefault,
  unionScopes,
} from '../../src/oauth/scopes.ts';

describe('OAuth scopes', () => {
  it('defaults to notes:read and notes:process when the scope is absent or blank', () => {
    expect(DEFAULT_SCOPES).toEqual(['notes:read', 'notes:process']);
    expect(parseScopes(undefined)).toEqual(['notes:read', 'notes:process']);
    expect(parseScopes('')).toEqual(['notes:read', 'notes:process']);
    expect(parseScopes('   ')).toEqual(['notes:read', 'notes:process']);
  });

  it('parses space-delimited scopes into canonical order without duplicates', () => {
    expect(parseScopes('notes:delete notes:read  notes:read')).toEqual(['notes:read', 'notes:delete']);
    expect(parseScopes('notes:write')).toEqual(['notes:write']);
  });

  it('rejects an unknown scope with invalid_scope', () => {
    for (const scope of ['notes:read admin', 'openid', 'notes:*', 'NOTES:READ']) {
      expect(() => parseScopes(scope)).toThrow(OAuthError);
      try {
        parseScopes(scope);
      } catch (error) {
        expect((error as OAuthError).error).toBe('invalid_scope');
      }
    }
  });

  it('lets a refresh narrow the granted scopes but never widen them', () => {
    const granted = parseScopes('notes:read notes:process');
    expect(narrowScopes(granted, undefined)).toEqual(['notes:read', 'notes:process']);
    expect(narrowScopes(granted, 'notes:read')).toEqual(['notes:read']);
    expect(() => narrowScopes(granted, 'notes:read notes:delete')).toThrow(/not granted/);
  });

  it('ticks every scope on the consent page by default except notes:delete, which cannot be undone', () => {
    expect(SUPPORTED_SCOPES.filter(tickedByDefault)).toEqual(['notes:read', 'notes:write', 'notes:process']);
  });

  it('adds a step-up to what a grant holds, in canonical order without duplicates', () => {
    expect(unionScopes(['notes:read', 'notes:process'], ['notes:delete', 'notes:read'])).toEqual([
      'notes:read',
      'notes:process',
      'notes:delete',
    ]);
  });
});
