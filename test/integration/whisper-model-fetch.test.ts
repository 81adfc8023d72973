import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchModel,
  ModelFetchError,
  type ModelFetchOptions,
  type ModelFetchProgress,
  presentModel,
} from '../../src/adapters/models/model-fetch.ts';
import type { KnownWhisperModel } from '../../src/adapters/speech/whisper/whisper-models.ts';
import { canMountTmpfs } from '../support/tmpfs.ts';
import { waitUntil } from '../support/wait.ts';

/**
 * Fetching a whisper.cpp model from a real HTTP server on loopback, serving a small fake model (random
 * bytes) under the usual `ggml-<name>.bin` name: verified by its SHA-256, resumed after a cut, refused
 * when it cannot fit, and shared between callers.
 */

const KiB = 1024;
const MODEL_BYTES = 384 * KiB;
const content = randomBytes(MODEL_BYTES);
const model = fakeModel('fake', content);

function fakeModel(name: string, bytes: Buffer): KnownWhisperModel {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return {
    name,
    file: `ggml-${name}.bin`,
    sha256,
    approxBytes: bytes.length,
    kind: 'whisper model',
    mirrorSetting: 'NOTES_WHISPER_MODEL_URL',
    defaultBaseUrl: 'http://127.0.0.1:9/',
    multilingual: false,
  };
}

interface Seen {
  path: string;
  range: string | undefined;
}

/**
 * Serves files by name under `/models/`, `/mirror/` and `/cdn/`; `/hf/<file>` answers 302 to a signed
 * `/cdn/` URL, as Hugging Face does; `/busy/` answers 503. Honours `Range: bytes=N-` (206, or 416 past the end).
 */
class ModelHost {
  readonly files = new Map<string, Buffer>();
  readonly seen: Seen[] = [];
  /** The next answer stops after this many body bytes and the connection is cut. */
  cutNextAfter: number | undefined;
  ignoreRange = false;
  /** No Content-Length: the body is sent chunked, its size unknown until its end. */
  chunked = false;
  /** Sends the body in pieces this far apart, so that a download takes a while. */
  pace: { pieceBytes: number; delayMs: number } | undefined;
  baseUrl = '';
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.answer(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.files.clear();
    this.seen.length = 0;
    this.cutNextAfter = undefined;
    this.ignoreRange = false;
    this.chunked = false;
    this.pace = undefined;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.baseUrl);
    this.seen.push({ path: `${url.pathname}${url.search}`, range: request.headers.range });
    const [, prefix, name] = /^\/([a-z]+)\/([^/]+)$/.exec(url.pathname) ?? [];
    if (prefix === 'busy') {
      response.writeHead(503).end();
      return;
    }
    if (prefix === 'hf' && name) {
      response.writeHead(302, { location: `/cdn/${name}?X-Amz-Signature=secret-signature` }).end();
      return;
    }
    const file =
      name && ['models', 'mirror', 'cdn'].includes(prefix ?? '') ? this.files.get(name) : undefined;
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    const from = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? Number.NaN);
    if (Number.isNaN(from) || this.ignoreRange) return this.send(response, 200, file, {});
    if (from >= file.length) {
      response.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
      return;
    }
    return this.send(response, 206, file.subarray(from), {
      'content-range': `bytes ${from}-${file.length - 1}/${file.length}`,
    });
  }

  private async send(
    response: ServerResponse,
    status: number,
    body: Buffer,
    headers: Record<string, string>,
  ): Promise<void> {
    response.writeHead(status, {
      ...headers,
      'content-type': 'application/octet-stream',
      ...(this.chunked ? {} : { 'content-length': String(body.length) }),
    });
    const cutAfter = this.cutNextAfter;
    this.cutNextAfter = undefined;
    const sent = cutAfter === undefined ? body : body.subarray(0, cutAfter);
    const pieceBytes = this.pace?.pieceBytes ?? 64 * KiB;
    for (let at = 0; at < sent.length; at += pieceBytes) {
      if (response.destroyed) return;
      await new Promise<void>((resolve) =>
        response.write(sent.subarray(at, at + pieceBytes), () => resolve()),
      );
      if (this.pace) await sleep(this.pace.delayMs);
    }
    if (cutAfter === undefined) {
      response.end();
      return;
    }
    // Let the bytes sent reach the client, then drop the connection mid-body.
    await sleep(100);
    response.socket?.destroy();
  }
}

const host = new ModelHost();
let dir: string;

beforeAll(() => host.start());
afterAll(() => host.close());
beforeEach(async () => {
  host.reset();
  host.files.set(model.file, content);
  dir = await mkdtemp(join(tmpdir(), 'notes-models-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function options(extra: Partial<ModelFetchOptions> = {}): ModelFetchOptions {
  return { dir, baseUrl: `${host.baseUrl}/models`, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<ModelFetchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelFetchError);
  return error as ModelFetchError;
}

describe('fetching a whisper model', () => {
  it('downloads the model into the models folder, verified, and keeps no partial file', async () => {
    const path = await fetchModel(model, options());
    expect(path).toBe(join(dir, model.file));
    expect((await readFile(path)).equals(content)).toBe(true);
    expect(await readdir(dir)).toEqual([model.file]);
    expect(host.seen).toEqual([{ path: `/models/${model.file}`, range: undefined }]);
    expect(await presentModel(model, dir)).toBe(path);
  });

  it('returns a model already present without asking the network', async () => {
    await writeFile(join(dir, model.file), content);
    expect(await fetchModel(model, options())).toBe(join(dir, model.file));
    expect(host.seen).toEqual([]);
  });

  it('says a model is not present before it is downloaded, without asking the network', async () => {
    expect(await presentModel(model, dir)).toBeUndefined();
    expect(await presentModel(model, join(dir, 'not-made-yet'))).toBeUndefined();
    expect(host.seen).toEqual([]);
  });

  it('creates the models folder when it is missing', async () => {
    const nested = join(dir, 'data', 'models');
    expect(await fetchModel(model, options({ dir: nested }))).toBe(join(nested, model.file));
  });

  it('reports progress at most about four times a second, ending at fraction 1', async () => {
    host.pace = { pieceBytes: 8 * KiB, delayMs: 20 };
    const reports: Array<{ at: number; progress: ModelFetchProgress }> = [];
    await fetchModel(
      model,
      options({ onProgress: (progress) => reports.push({ at: performance.now(), progress }) }),
    );
    const last = reports.at(-1)?.progress;
    expect(last).toMatchObject({ bytes: MODEL_BYTES, totalBytes: MODEL_BYTES, fraction: 1, etaSeconds: 0 });
    expect(last?.bytesPerSecond).toBeGreaterThan(0);
    // 48 pieces about 20 ms apart: a few throttled reports, not one per piece.
    expect(reports.length).toBeGreaterThanOrEqual(3);
    expect(reports.length).toBeLessThan(24);
    const throttled = reports.slice(0, -1);
    for (let i = 1; i < throttled.length; i += 1) {
      expect((throttled[i]?.at ?? 0) - (throttled[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(240);
    }
    const middle = throttled.find(
      ({ progress }) => progress.bytes < MODEL_BYTES && progress.etaSeconds,
    )?.progress;
    expect(middle?.totalBytes).toBe(MODEL_BYTES);
    expect(middle?.fraction).toBeGreaterThan(0);
    expect(middle?.fraction).toBeLessThan(1);
    expect(middle?.etaSeconds).toBeGreaterThan(0);
    const fractions = reports.map(({ progress }) => progress.fraction ?? 0);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
  });

  it('refuses a file whose SHA-256 is not the pinned one and leaves neither a partial nor a model file', async () => {
    const pinnedElsewhere = { ...model, sha256: createHash('sha256').update('another file').digest('hex') };
    const error = await failure(fetchModel(pinnedElsewhere, options()));
    expect(error.reason).toBe('checksum_mismatch');
    expect(error.message).toContain(model.sha256);
    expect(error.message).toMatch(/so it was deleted/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps what arrived when the connection is cut half way, and the next call resumes it with Range', async () => {
    const half = MODEL_BYTES / 2;
    host.cutNextAfter = half;
    const error = await failure(fetchModel(model, options()));
    expect(error.reason).toBe('offline');
    expect(error.message).toMatch(/was cut off after 0\.2 MiB of 0\.4 MiB/);
    expect(error.message).toMatch(/try again and the download resumes/);
    expect((await stat(join(dir, `${model.file}.partial`))).size).toBe(half);
    expect(await readdir(dir)).toEqual([`${model.file}.partial`]);

    const reports: ModelFetchProgress[] = [];
    const path = await fetchModel(model, options({ onProgress: (p) => reports.push(p) }));
    expect(host.seen.at(-1)).toEqual({ path: `/models/${model.file}`, range: `bytes=${half}-` });
    expect((await readFile(path)).equals(content)).toBe(true);
    expect(await readdir(dir)).toEqual([model.file]);
    // The resumed bytes count: progress is of the whole file.
    expect(reports.at(-1)).toMatchObject({ bytes: MODEL_BYTES, totalBytes: MODEL_BYTES, fraction: 1 });
  });

  it('starts over when the server ignores Range and sends the whole file', async () => {
    await writeFile(join(dir, `${model.file}.partial`), randomBytes(1000));
    host.ignoreRange = true;
    const path = await fetchModel(model, options());
    expect(host.seen).toEqual([{ path: `/models/${model.file}`, range: 'bytes=1000-' }]);
    expect((await readFile(path)).equals(content)).toBe(true);
  });

  it('verifies and keeps a partial file that already holds the whole model (416)', async () => {
    await writeFile(join(dir, `${model.file}.partial`), content);
    const path = await fetchModel(model, options());
    expect(host.seen).toEqual([{ path: `/models/${model.file}`, range: `bytes=${MODEL_BYTES}-` }]);
    expect((await readFile(path)).equals(content)).toBe(true);
    expect(await readdir(dir)).toEqual([model.file]);
  });

  it('answers a 404 with not_found, naming the URL without its query string, and NOTES_WHISPER_MODEL_URL', async () => {
    const missing = fakeModel('missing', randomBytes(10));
    const baseUrl = `${host.baseUrl}/models/?token=secret-token`;
    const error = await failure(fetchModel(missing, options({ baseUrl })));
    expect(error.reason).toBe('not_found');
    expect(host.seen).toEqual([{ path: '/models/ggml-missing.bin?token=secret-token', range: undefined }]);
    expect(error.message).toContain(`${host.baseUrl}/models/ggml-missing.bin (404)`);
    expect(error.message).not.toContain('secret-token');
    expect(error.message).toContain('NOTES_WHISPER_MODEL_URL');
    expect(await readdir(dir)).toEqual([]);
  });

  it('follows a redirect to a CDN, and never shows the signed query string in a message', async () => {
    const path = await fetchModel(model, options({ baseUrl: `${host.baseUrl}/hf` }));
    expect((await readFile(path)).equals(content)).toBe(true);
    expect(host.seen.map(({ path: seen }) => seen)).toEqual([
      `/hf/${model.file}`,
      `/cdn/${model.file}?X-Amz-Signature=secret-signature`,
    ]);

    const error = await failure(
      fetchModel(fakeModel('missing', randomBytes(10)), options({ baseUrl: `${host.baseUrl}/hf` })),
    );
    expect(error.reason).toBe('not_found');
    expect(error.message).toContain(`${host.baseUrl}/cdn/ggml-missing.bin`);
    expect(error.message).not.toMatch(/secret-signature|\?/);
  });

  it('answers another error status with http_error, naming the status', async () => {
    const error = await failure(fetchModel(model, options({ baseUrl: `${host.baseUrl}/busy` })));
    expect(error.reason).toBe('http_error');
    expect(error.message).toMatch(
      /answered 503 Service Unavailable for http:\/\/127\.0\.0\.1:\d+\/busy\/ggml-fake\.bin/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('says offline when nothing listens at the address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(fetchModel(model, options({ baseUrl: `http://127.0.0.1:${port}` })));
    expect(error.reason).toBe('offline');
    expect(error.message).toMatch(/Cannot reach 127\.0\.0\.1:\d+ .*\(ECONNREFUSED\)/);
    expect(error.message).toContain('NOTES_WHISPER_MODEL_URL');
  });

  it('refuses with disk_full before writing anything when the free space is too small', async () => {
    const asked: string[] = [];
    const freeBytes = async (where: string) => {
      asked.push(where);
      return 100 * KiB;
    };
    const error = await failure(fetchModel(model, options({ freeBytes })));
    expect(error.reason).toBe('disk_full');
    expect(error.message).toMatch(
      /Not enough free disk space .* about 0\.4 MiB are needed and 0\.1 MiB can be used/,
    );
    expect(asked).toEqual([dir]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('counts only the missing bytes of a resumed download against the free space', async () => {
    await writeFile(join(dir, `${model.file}.partial`), content.subarray(0, MODEL_BYTES - 10 * KiB));
    // Room for the last 10 KiB and the margin, not for the whole file.
    const path = await fetchModel(model, options({ freeBytes: async () => 100 * KiB }));
    expect((await readFile(path)).equals(content)).toBe(true);
  });

  it('takes a mirror base URL with a trailing slash', async () => {
    const path = await fetchModel(model, options({ baseUrl: `${host.baseUrl}/mirror/` }));
    expect((await readFile(path)).equals(content)).toBe(true);
    expect(host.seen).toEqual([{ path: `/mirror/${model.file}`, range: undefined }]);
  });

  it('makes one request for two callers at once, and gives both the same file and progress', async () => {
    host.pace = { pieceBytes: 32 * KiB, delayMs: 10 };
    const first: ModelFetchProgress[] = [];
    const second: ModelFetchProgress[] = [];
    const paths = await Promise.all([
      fetchModel(model, options({ onProgress: (p) => first.push(p) })),
      fetchModel(model, options({ onProgress: (p) => second.push(p) })),
    ]);
    expect(paths).toEqual([join(dir, model.file), join(dir, model.file)]);
    expect(host.seen).toHaveLength(1);
    expect(first.at(-1)?.fraction).toBe(1);
    expect(second.at(-1)?.fraction).toBe(1);
  });

  it('goes on with a download another caller still waits for when one caller stops waiting', async () => {
    host.pace = { pieceBytes: 16 * KiB, delayMs: 10 };
    const stop = new AbortController();
    const leaving = fetchModel(model, options({ signal: stop.signal }));
    const staying = fetchModel(model, options());
    const partial = join(dir, `${model.file}.partial`);
    await waitUntil(async () => ((await stat(partial).catch(() => undefined))?.size ?? 0) > 0, 'some bytes');
    stop.abort();
    await expect(leaving).rejects.toMatchObject({ name: 'AbortError' });
    expect((await readFile(await staying)).equals(content)).toBe(true);
    expect(host.seen).toHaveLength(1);
  });

  it('lets a caller stop waiting, keeps the partial file, and resumes it on the next call, even one made at once', async () => {
    host.pace = { pieceBytes: 8 * KiB, delayMs: 20 };
    const stop = new AbortController();
    const waiting = fetchModel(model, options({ signal: stop.signal }));
    const partial = join(dir, `${model.file}.partial`);
    await waitUntil(async () => ((await stat(partial).catch(() => undefined))?.size ?? 0) > 0, 'some bytes');
    stop.abort();
    host.pace = undefined;
    // At once, while the stopped download may still be letting go of the partial file.
    const again = fetchModel(model, options());
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    const path = await again;
    expect(host.seen).toHaveLength(2);
    expect(host.seen[1]?.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect((await readFile(path)).equals(content)).toBe(true);
  });
});

const mountable = canMountTmpfs();

describe('fetching a whisper model onto a small file system', () => {
  let small: string;

  beforeEach(async () => {
    if (!mountable) return;
    small = await mkdtemp(join(tmpdir(), 'notes-models-small-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
  });
  afterEach(async () => {
    if (!mountable) return;
    execFileSync('umount', [small]);
    await rm(small, { recursive: true, force: true });
  });

  it.skipIf(!mountable)('refuses a 2 MiB model on a 1 MiB disk with disk_full, writing nothing', async () => {
    const large = randomBytes(2 * 1024 * KiB);
    const big = fakeModel('big', large);
    host.files.set(big.file, large);
    const error = await failure(fetchModel(big, options({ dir: small })));
    expect(error.reason).toBe('disk_full');
    expect(error.message).toMatch(/^Not enough free disk space/);
    expect(await readdir(small)).toEqual([]);
  });

  it.skipIf(!mountable)(
    'stops with disk_full when the disk fills up while writing a model of unstated size, and makes no model file',
    async () => {
      const large = randomBytes(2 * 1024 * KiB);
      // The catalogue's size is too small and the server states none: only the write finds out.
      const understated = { ...fakeModel('big', large), approxBytes: 64 * KiB };
      host.files.set(understated.file, large);
      host.chunked = true;
      const error = await failure(fetchModel(understated, options({ dir: small })));
      expect(error.reason).toBe('disk_full');
      expect(error.message).toMatch(/is full, so the whisper model big could not be saved/);
      expect(await readdir(small)).not.toContain(understated.file);
    },
  );
});
