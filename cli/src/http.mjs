// @ts-check
import {
  backoffDelay,
  formatSeconds,
  isTransientStatus,
  parseRetryAfter,
  RETRY_POLICY,
  sleep,
} from './backoff.mjs';
import { ApiError, JobFailedError, UnavailableError } from './errors.mjs';
import { info } from './output.mjs';
import { VERSION } from './version.mjs';

/** A single request that takes longer than this is treated as a network error (Ask may take 30 s). */
const REQUEST_TIMEOUT_MS = 90_000;

/**
 * @typedef {object} ApiResponse
 * @property {number} status
 * @property {Headers} headers
 * @property {unknown} body parsed JSON, text for exports, null when empty
 */

/**
 * @typedef {object} RequestOptions
 * @property {Record<string, string | number | undefined>} [query]
 * @property {unknown} [body] sent as JSON
 * @property {number[]} [accept] error statuses returned to the caller instead of thrown
 * @property {number} [deadline] epoch ms: no retry waits past it
 * @property {string} [what] what the request does, for messages ("get note X")
 * @property {Record<string, string>} [headers] extra request headers (e.g. If-Match)
 * @property {number} [retries] retries of transient failures (default RETRY_POLICY.retries); 0 leaves
 *   them to the caller (`notes watch` waits out an outage itself, saying so once)
 */

/**
 * @typedef {object} ApiClient
 * @property {string} baseUrl
 * @property {(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse>} request
 */

/**
 * A client for the notes API: bearer auth, JSON in and out, bounded retries with backoff on 429,
 * 5xx and network errors. Error statuses become `ApiError`s with the exit code of their class.
 * @param {import('./config.mjs').Config} config
 * @returns {ApiClient}
 */
export function createClient(config) {
  return {
    baseUrl: config.baseUrl,
    request: (method, path, options = {}) => request(config, method, path, options),
  };
}

/**
 * @param {import('./config.mjs').Config} config
 * @param {string} method
 * @param {string} path
 * @param {RequestOptions} options
 * @returns {Promise<ApiResponse>}
 */
async function request(config, method, path, options) {
  const url = new URL(config.baseUrl + path);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  /** @type {Record<string, string>} */
  const headers = {
    authorization: `Bearer ${config.apiKey}`,
    accept: 'application/json',
    'user-agent': `notes-cli/${VERSION} node/${process.versions.node}`,
    ...options.headers,
  };
  /** @type {string | undefined} */
  let body;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const what = options.what ?? `${method} ${path}`;
  const attempts = (options.retries ?? RETRY_POLICY.retries) + 1;

  for (let attempt = 1; ; attempt++) {
    /** @type {ApiResponse | undefined} */
    let response;
    let failure = '';
    /** @type {number | undefined} */
    let retryAfterMs;
    try {
      const raw = await fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      response = { status: raw.status, headers: raw.headers, body: await readBody(raw) };
    } catch (error) {
      failure = `cannot reach ${config.baseUrl} (${networkReason(error)})`;
    }
    if (response) {
      if (!isTransientStatus(response.status)) return settle(response, what, options.accept ?? []);
      failure = `${statusText(response)}`;
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    }
    const delay = backoffDelay(attempt - 1, retryAfterMs);
    const outOfTime = options.deadline !== undefined && Date.now() + delay > options.deadline;
    if (attempt >= attempts || outOfTime) {
      const tries = attempt === 1 ? '1 attempt' : `${attempt} attempts`;
      throw new UnavailableError(`${what}: service unavailable after ${tries}: ${failure}`);
    }
    info(`${what}: ${failure}; retrying in ${formatSeconds(delay)} (attempt ${attempt + 1} of ${attempts})`);
    await sleep(delay);
  }
}

/**
 * @param {Response} raw
 * @returns {Promise<unknown>}
 */
async function readBody(raw) {
  const text = await raw.text();
  if (!text) return null;
  if ((raw.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Returns 2xx and accepted statuses; throws the matching error otherwise.
 * @param {ApiResponse} response
 * @param {string} what
 * @param {number[]} accept
 * @returns {ApiResponse}
 */
function settle(response, what, accept) {
  if ((response.status >= 200 && response.status < 300) || accept.includes(response.status)) return response;
  if (response.status === 409 && isFailedJob(response.body)) {
    throw new JobFailedError(`${what}: the job failed: ${detailOf(response)}`);
  }
  const hint =
    response.status === 401
      ? '\nCheck NOTES_API_KEY: the key is missing, malformed, unknown or revoked.'
      : '';
  throw new ApiError(`${what}: ${statusText(response)}${hint}`, response.status, response.body);
}

/**
 * @param {unknown} body
 * @returns {boolean}
 */
export function isFailedJob(body) {
  return (
    typeof body === 'object' &&
    body !== null &&
    /** @type {{ status?: unknown }} */ (body).status === 'failed'
  );
}

/**
 * The error `detail` of a response, or a short excerpt of its body.
 * @param {ApiResponse} response
 * @returns {string}
 */
export function detailOf(response) {
  const body = response.body;
  if (typeof body === 'object' && body !== null) {
    const detail = /** @type {{ detail?: unknown }} */ (body).detail;
    if (typeof detail === 'string') return detail;
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300);
  return 'no details';
}

/**
 * @param {ApiResponse} response
 * @returns {string} e.g. `HTTP 404: Note not found.`
 */
function statusText(response) {
  return `HTTP ${response.status}: ${detailOf(response)}`;
}

/**
 * @param {unknown} error
 * @returns {string}
 */
function networkReason(error) {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
    const cause = /** @type {{ cause?: { code?: unknown, message?: unknown } }} */ (error).cause;
    if (cause && typeof cause.code === 'string') return cause.code;
    if (cause && typeof cause.message === 'string') return cause.message;
    return error.message;
  }
  return String(error);
}

/**
 * The client without its own retries (one attempt per request): for a caller that waits out a
 * service that is down itself, saying so once, instead of the client's line per retry and its exit 8.
 * @param {ApiClient} direct
 * @returns {ApiClient}
 */
export function withoutClientRetries(direct) {
  return {
    baseUrl: direct.baseUrl,
    request: (method, path, options = {}) => direct.request(method, path, { retries: 0, ...options }),
  };
}
