import { describe, expect, it } from 'vitest';
import { isCodeVerifier, isS256Challenge, s256Challenge, verifyS256 } from '../../src/oauth/pkce.ts';

// RFC 7636 appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE with S256', () => {
  it('derives the challenge of RFC 7636 appendix B from its verifier', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
  });

  it('accepts the verifier that hashes to the challenge', () => {
    expect(verifyS256(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
  });

  it('refuses another verifier, the challenge itself (plain) and an altered challenge', () => {
    expect(verifyS256(`${RFC_VERIFIER.slice(0, -1)}Y`, RFC_CHALLENGE)).toBe(false);
    expect(verifyS256(RFC_CHALLENGE, RFC_CHALLENGE)).toBe(false);
    expect(verifyS256(RFC_VERIFIER, `${RFC_CHALLENGE.slice(0, -1)}d`)).toBe(false);
  });

  it('refuses verifiers shorter than 43 or longer than 128 characters, or with other characters', () => {
    expect(isCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isCodeVerifier('a'.repeat(43))).toBe(true);
    expect(isCodeVerifier('a'.repeat(128))).toBe(true);
    expect(isCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isCodeVerifier(`${'a'.repeat(42)}+`)).toBe(false);
    expect(verifyS256('short', s256Challenge('short'))).toBe(false);
  });

  it('accepts only 43-character base64url challenges', () => {
    expect(isS256Challenge(RFC_CHALLENGE)).toBe(true);
    expect(isS256Challenge(`${RFC_CHALLENGE}=`)).toBe(false);
    expect(isS256Challenge(RFC_CHALLENGE.slice(1))).toBe(false);
    expect(isS256Challenge(`${RFC_CHALLENGE.slice(1)}/`)).toBe(false);
  });
});
