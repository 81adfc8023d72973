import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isCodeVerifier(value: string): boolean {
  return VERIFIER_PATTERN.test(value);
}

export function isS256Challenge(value: string): boolean {
  return S256_CHALLENGE_PATTERN.test(value);
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when `verifier` is well-formed and hashes to `challenge` (compared in constant time). */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isS256Challenge(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256Challenge(verifier)), Buffer.from(challenge));
}
