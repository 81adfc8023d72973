import { assertMatchesContract } from './contract.ts';

/**
 * A small HTTP client for the tests: real requests, JSON in and out. Every response of an operation
 * in openapi.yaml is checked against the contract (status, media type, body and header schemas), so
 * each test that uses this client also shows that the service answers as documented.
 */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export function client(baseUrl: string, defaultKey: string) {
  return async function request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const key = options.key === undefined ? defaultKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    assertMatchesContract({ method, path, status: response.status, headers: response.headers, text });
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : null) as T,
    };
  };
}

export type Api = ReturnType<typeof client>;
