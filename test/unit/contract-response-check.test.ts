import { describe, expect, it } from 'vitest';
import { contractViolations, type ObservedResponse } from '../support/contract.ts';

const NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';
const ACCOUNT = {
  account_id: '6a1e2f3d-4c5b-4a69-8b7c-0d1e2f3a4b5c',
  name: 'local',
  created_at: 1767000000000,
  api_key: { key_id: 'key_01', created_at: 1767000000000, scopes: ['notes:read'] },
  access_token: null,
};

function observed(
  method: string,
  path: string,
  status: number,
  body?: unknown,
  headers = {},
): ObservedResponse {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8';
  return {
    method,
    path,
    status,
    headers: new Headers(body === undefined ? headers : { 'content-type': contentType, ...headers }),
    text,
  };
}

describe('the response check against openapi.yaml (used by every integration test client)', () => {
  it('accepts responses that match the contract', () => {
    expect(contractViolations(observed('GET', '/v1/account', 200, ACCOUNT))).toEqual([]);
    expect(
      contractViolations(observed('GET', '/v1/notes?limit=2', 200, { notes: [], next_cursor: null })),
    ).toEqual([]);
    expect(contractViolations(observed('DELETE', `/v1/notes/${NOTE}`, 204))).toEqual([]);
    expect(
      contractViolations(
        observed(
          'GET',
          `/v1/notes/${NOTE}`,
          401,
          { detail: 'Missing API key' },
          {
            'www-authenticate': 'Bearer realm="notes"',
          },
        ),
      ),
    ).toEqual([]);
    expect(
      contractViolations({
        ...observed('GET', `/v1/notes/${NOTE}/transcription?format=vtt`, 200),
        headers: new Headers({ 'content-type': 'text/vtt; charset=utf-8' }),
        text: 'WEBVTT\n',
      }),
    ).toEqual([]);
  });

  it('names a body that breaks its schema, such as an account key without created_at', () => {
    const { created_at: _, ...keyWithoutDate } = ACCOUNT.api_key;
    expect(
      contractViolations(observed('GET', '/v1/account', 200, { ...ACCOUNT, api_key: keyWithoutDate })),
    ).toEqual([
      expect.stringMatching(/getCurrentAccount 200: \/api_key must have required property 'created_at'/),
    ]);
  });

  it('names an undeclared status, media type or header value, and a body where none is declared', () => {
    expect(contractViolations(observed('GET', '/v1/account', 404, { detail: 'x' }))).toEqual([
      expect.stringMatching(/status 404 is not declared/),
    ]);
    expect(contractViolations(observed('GET', '/v1/account', 200, 'hello'))).toEqual([
      expect.stringMatching(/media type 'text\/plain' is not declared/),
    ]);
    expect(
      contractViolations(
        observed('GET', '/v1/account', 401, { detail: 'x' }, { 'www-authenticate': 'Basic' }),
      ),
    ).toEqual([expect.stringMatching(/header WWW-Authenticate/)]);
    expect(contractViolations(observed('DELETE', `/v1/notes/${NOTE}`, 204, { detail: 'x' }))).toEqual([
      expect.stringMatching(/declares no body/),
    ]);
  });

  it('holds an undeclared server error to the Error shape, and leaves routes outside the contract alone', () => {
    expect(contractViolations(observed('GET', '/v1/account', 503, { detail: 'busy' }))).toEqual([]);
    expect(contractViolations(observed('GET', '/v1/account', 500, { message: 'boom' }))).toEqual([
      expect.stringMatching(/must have required property 'detail'/),
    ]);
    expect(contractViolations(observed('GET', '/v1/nothing-here', 404, 'not json'))).toEqual([]);
    expect(contractViolations(observed('PUT', '/v1/notes', 405, 'not json'))).toEqual([]);
  });
});
