// @ts-check
import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { backoffDelay, formatSeconds, isTransientStatus, RETRY_POLICY, sleep } from './backoff.mjs';
import { CliError, UnavailableError } from './errors.mjs';
import { EXIT } from './exit-codes.mjs';
import { info } from './output.mjs';
import { createProgress } from './progress.mjs';

/** The storage's answer to a PUT with `If-None-Match: *` when the object already exists. */
const PRECONDITION_FAILED = 412;

/** An upload that sends nothing and receives nothing for this long is abandoned (and retried). */
const IDLE_TIMEOUT_MS = 120_000;

/**
 * PUTs a file to a presigned upload target, streaming it from disk with `Content-Length` and
 * exactly the target's headers (never the API key), with a progress display on stderr. Retries
 * network errors, 429 and 5xx with backoff; the URL itself is never printed (it is a secret).
 * Upload URLs store a recording once (`If-None-Match: *`): 412 on a retry means an earlier attempt
 * was stored before its answer was lost, so the upload is done; 412 on the first attempt means the
 * note already has its recording.
 * @param {import('./types.mjs').UploadTarget} target
 * @param {string} file
 * @param {number} size bytes
 * @param {string} label shown in the progress lines
 * @returns {Promise<void>}
 */
export async function uploadFile(target, file, size, label) {
  const url = new URL(target.url);
  /** @type {Record<string, string>} */
  const headers = { ...target.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
    headers['Content-Length'] = String(size);
  }
  const progress = createProgress(label, size);
  const attempts = RETRY_POLICY.retries + 1;
  for (let attempt = 1; ; attempt++) {
    let failure = '';
    try {
      const response = await putOnce(url, target.method || 'PUT', headers, file, progress.advance);
      if (response.status >= 200 && response.status < 300) {
        progress.done();
        return;
      }
      if (response.status === PRECONDITION_FAILED) {
        if (attempt > 1) {
          progress.done();
          return;
        }
        throw new CliError(
          `Upload of ${label} refused: this note already has its recording (HTTP 412). ` +
            'A note keeps its one recording: submit a different recording as a new note.',
          EXIT.REJECTED,
        );
      }
      if (!isTransientStatus(response.status)) {
        throw new CliError(
          `Upload of ${label} rejected by the storage service (HTTP ${response.status})` +
            `${storageDetail(response.body)}. Submit again to get a fresh upload URL.`,
          EXIT.REJECTED,
        );
      }
      failure = `HTTP ${response.status}`;
    } catch (error) {
      if (error instanceof CliError) throw error;
      failure = error instanceof Error ? error.message : String(error);
    }
    if (attempt >= attempts) {
      throw new UnavailableError(`Upload of ${label} failed after ${attempts} attempts: ${failure}`);
    }
    const delay = backoffDelay(attempt - 1);
    progress.restart();
    info(
      `Upload of ${label}: ${failure}; retrying in ${formatSeconds(delay)} (attempt ${attempt + 1} of ${attempts})`,
    );
    await sleep(delay);
  }
}

/**
 * @param {URL} url
 * @param {string} method
 * @param {Record<string, string>} headers
 * @param {string} file
 * @param {(bytes: number) => void} onBytes
 * @returns {Promise<{ status: number, body: string }>}
 */
function putOnce(url, method, headers, file, onBytes) {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, { method, headers }, (response) => {
      /** @type {Buffer[]} */
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.setTimeout(IDLE_TIMEOUT_MS, () =>
      request.destroy(new Error(`no progress for ${IDLE_TIMEOUT_MS / 1000} s`)),
    );
    request.on('error', (error) => reject(new Error(networkMessage(error))));
    const counter = new Transform({
      transform(chunk, _encoding, callback) {
        onBytes(chunk.length);
        callback(null, chunk);
      },
    });
    pipeline(createReadStream(file), counter, request).catch((error) =>
      reject(new Error(networkMessage(error))),
    );
  });
}

/**
 * @param {unknown} error
 * @returns {string}
 */
function networkMessage(error) {
  const code = /** @type {{ code?: unknown }} */ (error).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * The `<Message>` of an S3 error body, if any.
 * @param {string} body
 * @returns {string}
 */
function storageDetail(body) {
  const match = /<Message>([^<]{1,300})<\/Message>/.exec(body);
  return match ? `: ${match[1]}` : '';
}
