/**
 * Downloads a model (whisper.cpp's, a voice-embedding model) once, into `NOTES_DATA_DIR/models`, and uses it only when it is
 * exactly the published file: the bytes go to `<file>.partial`, are hashed as they arrive, and are
 * renamed to the model's name only when their SHA-256 is the pinned one. A cut connection keeps the
 * partial file, and the next call asks for the rest (`Range`), so a slow line never starts over.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { diskSpace } from '../disk-space.ts';
import { abortError, throwIfAborted } from '../speech/abort.ts';

/** A model file the service knows by name and fetches from where it is published. */
export interface FetchableModel {
  /** As its setting names it: `base.en`, `wespeaker-resnet34-lm`, ... */
  name: string;
  /** The file's name at the model host and in the models directory. */
  file: string;
  /** Of the published file: a download is used only when it is exactly that file. */
  sha256: string;
  /** Checked against free space before a download whose server states no size. */
  approxBytes: number;
  /** How messages name it: "whisper model", "voice model". */
  kind: string;
  /** The setting that names a mirror (`NOTES_WHISPER_MODEL_URL`, ...). */
  mirrorSetting: string;
  /** Where it is published; a mirror serves the same file names under its own base URL. */
  defaultBaseUrl: string;
}

export interface ModelFetchProgress {
  /** Bytes of the model on disk so far, a resumed download's earlier bytes included. */
  bytes: number;
  totalBytes?: number;
  fraction?: number;
  etaSeconds?: number;
  bytesPerSecond?: number;
}

export type ModelFetchFailure = 'offline' | 'not_found' | 'checksum_mismatch' | 'disk_full' | 'http_error';

/** Why a model could not be fetched; the message says what happened and what to do about it. */
export class ModelFetchError extends Error {
  override readonly name = 'ModelFetchError';
  constructor(
    readonly reason: ModelFetchFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface ModelFetchOptions {
  /** `NOTES_DATA_DIR/models`: created when missing. */
  dir: string;
  /** Default: the model's `defaultBaseUrl`; a mirror serves the same file names under it. */
  baseUrl?: string;
  /** At most about four reports a second, and a last one when all the bytes are in. */
  onProgress?: (progress: ModelFetchProgress) => void;
  /** Stops waiting (an `AbortError`); the download itself stops once no caller waits for it. */
  signal?: AbortSignal;
  /** Bytes that may be written under `dir`; default: free space less the service's reserve. */
  freeBytes?: (dir: string) => Promise<number>;
  fetch?: typeof fetch;
}

const MiB = 1024 * 1024;
const PROGRESS_INTERVAL_MS = 250;
const MIN_RATE_SECONDS = 0.2;
/** Room beyond the file itself for the file system's own blocks. */
const MIN_MARGIN_BYTES = 64 * 1024;
const MARGIN_SHARE = 0.01;
/** Connection failures that mean "not reachable from here", whatever the library wraps them in. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  // Node's fetch gives up on a server silent for 5 minutes (undici's headers and body timeouts): a
  // stalled download ends as a cut one, resumable, instead of holding the service's jobs forever.
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const FULL_DISK_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** Path where the model lives when present (no network), else undefined. */
export async function presentModel(model: FetchableModel, dir: string): Promise<string | undefined> {
  const path = join(resolve(dir), model.file);
  // Only a verified download is ever renamed to this name, so its presence is enough.
  return (await isFile(path)) ? path : undefined;
}

interface Download {
  result: Promise<string>;
  listeners: Set<(progress: ModelFetchProgress) => void>;
  callers: number;
  controller: AbortController;
}

/** Downloads under way in this process, by final path: a second caller waits for the first's. */
const downloads = new Map<string, Download>();

/** Path of the verified model file, downloading it first when it is not there. */
export async function fetchModel(model: FetchableModel, options: ModelFetchOptions): Promise<string> {
  throwIfAborted(options.signal);
  const present = await presentModel(model, options.dir);
  if (present) return present;
  const path = join(resolve(options.dir), model.file);
  let download = downloads.get(path);
  // One being stopped (its callers all gave up) is not joined: a new one starts once it has let go.
  if (!download || download.controller.signal.aborted) {
    download = startDownload(model, options, path, download?.result);
    downloads.set(path, download);
  }
  return await follow(download, options);
}

function startDownload(
  model: FetchableModel,
  options: ModelFetchOptions,
  path: string,
  stopping: Promise<string> | undefined,
): Download {
  const listeners = new Set<(progress: ModelFetchProgress) => void>();
  const controller = new AbortController();
  const report = (progress: ModelFetchProgress) => {
    for (const listener of listeners) listener(progress);
  };
  const run = async () => {
    if (stopping) {
      // It may still be appending to the partial file, which this download would then continue.
      await stopping.catch(() => {});
      const present = await presentModel(model, options.dir);
      if (present) return present;
    }
    return await downloadModel(model, options, report, controller.signal);
  };
  const download: Download = { result: run(), listeners, callers: 0, controller };
  download.result = download.result.finally(() => {
    if (downloads.get(path) === download) downloads.delete(path);
  });
  // Every caller may have stopped waiting by the time it fails.
  download.result.catch(() => {});
  return download;
}

/** Waits for `download` on behalf of one caller, who may stop waiting (its signal) without the others. */
async function follow(download: Download, { signal, onProgress }: ModelFetchOptions): Promise<string> {
  download.callers += 1;
  if (onProgress) download.listeners.add(onProgress);
  let stopWaiting: (() => void) | undefined;
  try {
    if (!signal) return await download.result;
    return await new Promise<string>((resolvePromise, reject) => {
      stopWaiting = () => reject(abortError(signal));
      signal.addEventListener('abort', stopWaiting, { once: true });
      if (signal.aborted) stopWaiting();
      download.result.then(resolvePromise, reject);
    });
  } finally {
    if (stopWaiting) signal?.removeEventListener('abort', stopWaiting);
    if (onProgress) download.listeners.delete(onProgress);
    download.callers -= 1;
    // Nobody waits any more: stop; the partial file stays for the next call to resume.
    if (signal?.aborted && download.callers === 0) download.controller.abort(signal.reason);
  }
}

async function downloadModel(
  model: FetchableModel,
  options: ModelFetchOptions,
  report: (progress: ModelFetchProgress) => void,
  signal: AbortSignal,
): Promise<string> {
  const dir = resolve(options.dir);
  const finalPath = join(dir, model.file);
  const partialPath = `${finalPath}.partial`;
  const url = modelUrl(model, options.baseUrl ?? model.defaultBaseUrl);
  const doFetch = options.fetch ?? fetch;
  const freeBytes = options.freeBytes ?? roomBeyondReserve;
  const names = { model, url, partialPath };

  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw isFullDisk(error) ? diskFilledUp(names, 0, error) : error;
  });
  let offset = await sizeOf(partialPath);
  const request = async (from: number): Promise<Response> => {
    try {
      return await doFetch(url, { headers: from > 0 ? { range: `bytes=${from}-` } : {}, signal });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (isUnreachable(error)) throw unreachable(names, error);
      throw error;
    }
  };

  let response = await request(offset);
  if (response.status === 206 && offset > 0 && contentRange(response)?.start !== offset) {
    // A range other than the one asked for: the partial bytes cannot be trusted to line up.
    await discard(response);
    await rm(partialPath, { force: true });
    offset = 0;
    response = await request(0);
  }

  if (response.status === 416 && offset > 0) {
    // Nothing after the partial file's end: it holds the whole model (or is not the model at all).
    await discard(response);
    report({ bytes: offset, totalBytes: offset, fraction: 1, etaSeconds: 0 });
    return await finish(names, await hashOf(partialPath), finalPath);
  }
  if (response.status === 404) {
    await discard(response);
    throw new ModelFetchError(
      'not_found',
      `The ${model.kind} ${model.name} is not at ${shownUrl(url)}${via(url, response)} (404). Check the model name, or set ${model.mirrorSetting} to a mirror that serves ${model.file}.`,
    );
  }
  const resuming = response.status === 206;
  if (response.status !== 200 && !(resuming && offset > 0)) {
    await discard(response);
    throw new ModelFetchError(
      'http_error',
      `The model host answered ${response.status} ${response.statusText} for ${shownUrl(url)}${via(url, response)} when downloading the ${model.kind} ${model.name}. Try again later, or set ${model.mirrorSetting} to a mirror.`,
    );
  }
  const start = resuming ? offset : 0;
  const length = headerNumber(response, 'content-length');
  const totalBytes = resuming
    ? (contentRange(response)?.total ?? (length === undefined ? undefined : start + length))
    : length;

  // Before writing anything: a download that cannot fit must not fill the disk the database uses.
  const needed = withMargin(length ?? Math.max(0, model.approxBytes - start));
  // A fresh start truncates the partial file, whose bytes then count as room.
  const room = (await freeBytes(dir)) + (resuming ? 0 : offset);
  if (room < needed) {
    await discard(response);
    throw notEnoughRoom(names, needed, room);
  }

  const hash = createHash('sha256');
  if (resuming) await hashFile(partialPath, hash);
  const handle = await open(partialPath, resuming ? 'a' : 'w').catch((error: unknown) => {
    throw isFullDisk(error) ? diskFilledUp(names, start, error) : error;
  });
  const progress = progressReporter(report, start, totalBytes);
  let bytes = start;
  try {
    const reader = response.body?.getReader();
    for (;;) {
      let chunk: Uint8Array | undefined;
      try {
        const read = await reader?.read();
        chunk = read?.done === false ? read.value : undefined;
      } catch (error) {
        if (signal.aborted) throw abortError(signal);
        throw cut(names, bytes, totalBytes, error);
      }
      if (!chunk) break;
      try {
        await writeAll(handle, chunk);
      } catch (error) {
        await reader?.cancel().catch(() => {});
        // What was written is a good beginning of the file: kept, so a retry with room resumes.
        throw isFullDisk(error) ? diskFilledUp(names, bytes, error) : error;
      }
      hash.update(chunk);
      bytes += chunk.length;
      progress(bytes);
    }
    // A body that ended cleanly yet short (a proxy that gave up): as good as cut.
    if (totalBytes !== undefined && bytes < totalBytes) throw cut(names, bytes, totalBytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  progress(bytes, true);
  return await finish(names, hash.digest('hex'), finalPath);
}

interface Names {
  model: FetchableModel;
  url: string;
  partialPath: string;
}

/** Renames the partial file to the model's name when its hash is the pinned one; removes it otherwise. */
async function finish(
  { model, url, partialPath }: Names,
  sha256: string,
  finalPath: string,
): Promise<string> {
  if (sha256 !== model.sha256.toLowerCase()) {
    await rm(partialPath, { force: true });
    throw new ModelFetchError(
      'checksum_mismatch',
      `The file downloaded from ${shownUrl(url)} is not the published ${model.kind} ${model.name}: its SHA-256 checksum is ${sha256}, not ${model.sha256}, so it was deleted. If ${model.mirrorSetting} names a mirror, it serves a different file under that name; otherwise try again.`,
    );
  }
  await rename(partialPath, finalPath);
  await syncDirectory(resolve(finalPath, '..'));
  return finalPath;
}

function modelUrl(model: FetchableModel, baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new Error(
      `The model URL (${model.mirrorSetting}) is not a URL: give one like ${model.defaultBaseUrl}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(
      `The model URL (${model.mirrorSetting}) must be http(s), not ${parsed.protocol}; give one like ${model.defaultBaseUrl}`,
    );
  }
  if (parsed.username || parsed.password) {
    throw new Error('The model URL must not contain a user name or password (user:password@)');
  }
  // The file goes after the base's path; a query string (a mirror's access token) stays a query string.
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/${model.file}`;
  return parsed.href;
}

/** The URL as messages show it: a query string or fragment may carry a token. */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Where a redirect led, when it did (Hugging Face sends downloads on to a CDN). */
function via(url: string, response: Response): string {
  return response.redirected && response.url && response.url !== url
    ? ` (redirected to ${shownUrl(response.url)})`
    : '';
}

async function roomBeyondReserve(dir: string): Promise<number> {
  const { free, reserve } = await diskSpace(dir);
  return free - reserve;
}

function withMargin(bytes: number): number {
  return bytes + Math.max(MIN_MARGIN_BYTES, Math.ceil(bytes * MARGIN_SHARE));
}

function contentRange(response: Response): { start: number; total?: number } | undefined {
  const match = /^bytes\s+(\d+)-\d+\/(\d+|\*)$/i.exec(response.headers.get('content-range')?.trim() ?? '');
  if (!match) return undefined;
  const total = match[2] === '*' ? undefined : Number(match[2]);
  return { start: Number(match[1]), ...(total === undefined ? {} : { total }) };
}

function headerNumber(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** Lets go of a body not read, so the connection is not held open. */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let written = 0;
  while (written < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, written, chunk.length - written);
    written += bytesWritten;
  }
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

async function hashOf(path: string): Promise<string> {
  const hash = createHash('sha256');
  await hashFile(path, hash);
  return hash.digest('hex');
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 0;
    throw error;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** So that the rename survives a power cut; some file systems refuse to sync a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The rename itself has happened; only its durability across a crash is less certain.
  }
}

function progressReporter(
  report: (progress: ModelFetchProgress) => void,
  startBytes: number,
  totalBytes: number | undefined,
): (bytes: number, last?: boolean) => void {
  const startedAt = performance.now();
  let reportedAt = Number.NEGATIVE_INFINITY;
  return (bytes, last = false) => {
    const now = performance.now();
    if (!last && now - reportedAt < PROGRESS_INTERVAL_MS) return;
    reportedAt = now;
    const seconds = (now - startedAt) / 1000;
    // The first chunks arrive in a burst: a rate over less time than this says little.
    const measured = last ? seconds > 0 : seconds >= MIN_RATE_SECONDS;
    const bytesPerSecond = measured && bytes > startBytes ? (bytes - startBytes) / seconds : undefined;
    const total = last ? (totalBytes ?? bytes) : totalBytes;
    const progress: ModelFetchProgress = { bytes };
    if (total !== undefined && total > 0) {
      progress.totalBytes = total;
      progress.fraction = last ? 1 : Math.min(1, bytes / total);
    }
    if (bytesPerSecond !== undefined) progress.bytesPerSecond = bytesPerSecond;
    if (last) progress.etaSeconds = 0;
    else if (total !== undefined && bytesPerSecond !== undefined) {
      progress.etaSeconds = Math.max(0, (total - bytes) / bytesPerSecond);
    }
    report(progress);
  };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The code of `error` or of its causes (fetch wraps the socket's error in a `TypeError`). */
function codeInChain(error: unknown): string | undefined {
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth += 1) {
    const code = errorCode(current);
    if (code) return code;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

function isUnreachable(error: unknown): boolean {
  // fetch rejects with a TypeError for every failure to get an answer (DNS, connect, TLS, redirects).
  if (error instanceof TypeError) return true;
  const code = codeInChain(error);
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

function isFullDisk(error: unknown): boolean {
  const code = codeInChain(error);
  return code !== undefined && FULL_DISK_CODES.has(code);
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

function unreachable({ model, url }: Names, error: unknown): ModelFetchError {
  const code = codeInChain(error);
  return new ModelFetchError(
    'offline',
    `Cannot reach ${new URL(url).host} to download the ${model.kind} ${model.name}${code ? ` (${code})` : ''}. Check the network connection and try again, or set ${model.mirrorSetting} to a mirror this machine can reach.`,
    { cause: error },
  );
}

function cut({ model, url, partialPath }: Names, bytes: number, total: number | undefined, error?: unknown) {
  const of = total === undefined ? '' : ` of ${mib(total)}`;
  return new ModelFetchError(
    'offline',
    `The download of the ${model.kind} ${model.name} from ${new URL(url).host} was cut off after ${mib(bytes)}${of}. What arrived is kept in ${partialPath}; try again and the download resumes from there.`,
    error === undefined ? undefined : { cause: error },
  );
}

function notEnoughRoom({ model, partialPath }: Names, needed: number, room: number): ModelFetchError {
  return new ModelFetchError(
    'disk_full',
    `Not enough free disk space in ${resolve(partialPath, '..')} for the ${model.kind} ${model.name}: about ${mib(needed)} are needed and ${mib(Math.max(0, room))} can be used (free space less what is kept in reserve for the service). Free some space or set NOTES_DATA_DIR to a larger disk, then try again.`,
  );
}

/** ENOSPC while writing: the bytes already written are a good beginning of the file, so they stay. */
function diskFilledUp({ model, partialPath }: Names, keptBytes: number, error: unknown): ModelFetchError {
  const kept =
    keptBytes > 0
      ? ` The ${mib(keptBytes)} already downloaded are kept in ${partialPath}, so the download resumes; delete that file to free its space instead.`
      : '';
  return new ModelFetchError(
    'disk_full',
    `The disk holding ${resolve(partialPath, '..')} is full, so the ${model.kind} ${model.name} could not be saved.${kept} Free some space or set NOTES_DATA_DIR to a larger disk, then try again.`,
    { cause: error },
  );
}
