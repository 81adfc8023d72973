import { accessToken, currentSession } from './auth.ts';
import type { AppConfig } from './config.ts';
import { permissionWords } from './permission-words.ts';

/** An answer of the API that is not a success, with the `detail` it gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly body: Record<string, unknown>,
  ) {
    super(detail);
  }
}

/**
 * A 403 `insufficient_scope`: the person did not give this session a permission the action needs.
 * `wanted` is every scope to ask for (those held and the missing ones, from the challenge), `missing`
 * those not held; the message says it in plain words, for wherever it ends up.
 */
export class PermissionNeeded extends ApiError {
  constructor(
    readonly wanted: string[],
    readonly missing: string[],
    body: Record<string, unknown>,
  ) {
    super(
      403,
      `That needs your permission to ${permissionWords(missing)}, which this session was not given.`,
      body,
    );
  }
}

/** The session ended (or never began): the app shows the sign-in page. */
export class SignedOut extends Error {}

export interface ApiResult<T> {
  status: number;
  data: T;
  etag: string | null;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** The ETag the change was made against: a 412 then means someone else changed it meanwhile. */
  ifMatch?: string | null;
  query?: Record<string, string | number | boolean | null | undefined>;
}

export interface Api {
  request<T>(path: string, options?: RequestOptions): Promise<ApiResult<T>>;
}

export function createApi(config: AppConfig, onSignedOut: () => void): Api {
  async function send(path: string, options: RequestOptions, token: string): Promise<Response> {
    const url = new URL(`${config.api_base_url}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== null && value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.ifMatch) headers['If-Match'] = options.ifMatch;
    return fetch(url, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      cache: 'no-store',
    });
  }

  return {
    async request<T>(path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
      let token = await accessToken(config);
      if (!token) throw signedOut(onSignedOut);
      let response = await send(path, options, token);
      if (response.status === 401) {
        // The access token may have been revoked or expired early: one refresh, then give up.
        token = await accessToken(config, true);
        if (!token) throw signedOut(onSignedOut);
        response = await send(path, options, token);
        if (response.status === 401) throw signedOut(onSignedOut);
      }
      const text = await response.text();
      const data = (
        text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text
      ) as T;
      if (!response.ok) {
        const body = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
        const detail = String(body.detail ?? `The service answered ${response.status}`);
        const challenge = response.headers.get('www-authenticate') ?? '';
        if (response.status === 403 && challenge.includes('insufficient_scope')) {
          const wanted = (/scope="([^"]*)"/.exec(challenge)?.[1] ?? '').split(' ').filter(Boolean);
          const held = (currentSession()?.scope ?? '').split(' ');
          throw new PermissionNeeded(
            wanted,
            wanted.filter((scope) => !held.includes(scope)),
            body,
          );
        }
        throw new ApiError(response.status, detail, body);
      }
      return { status: response.status, data, etag: response.headers.get('etag') };
    },
  };
}

function signedOut(onSignedOut: () => void): SignedOut {
  onSignedOut();
  return new SignedOut('Your session ended: sign in again');
}
