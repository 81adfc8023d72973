import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type FetchableModel,
  fetchModel,
  ModelFetchError,
  type ModelFetchProgress,
  presentModel,
} from './model-fetch.ts';

/**
 * A model's provisioning state, written to a small file in the models directory by the runtime that
 * fetches it and read by the queue workers (in threads of their own) and `/readyz`.
 */
export type ProvisionState<Ready extends object = object> =
  | { state: 'checking'; model: string }
  | { state: 'fetching'; model: string; progress: ModelFetchProgress }
  | ({ state: 'ready'; model: string; path: string } & Ready)
  | { state: 'unavailable'; model: string; reason: string; remedy: string };

/** Writes each state (atomically: readers never see half a file); progress at most once a second. */
/** Any state a provisioner writes: ProvisionState, or one with states of its own (`off`). */
interface WrittenState {
  state: string;
  progress?: ModelFetchProgress;
}

export function stateWriter<S extends WrittenState>(
  dir: string,
  fileName: string,
  onState?: (state: S) => void,
): (state: S) => Promise<S> {
  const file = join(dir, fileName);
  let lastProgressAt = 0;
  let writing: Promise<void> = Promise.resolve();
  return (state) => {
    if (state.state === 'fetching' && (state.progress?.bytes ?? 0) > 0) {
      if (Date.now() - lastProgressAt < 1000) return Promise.resolve(state);
      lastProgressAt = Date.now();
    }
    onState?.(state);
    writing = writing.then(async () => {
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, JSON.stringify(state));
      await rename(partial, file);
    });
    return writing.then(() => state);
  };
}

/** The state last written to `fileName` in `dir`, or undefined when none was (yet). */
export async function readState<S extends WrittenState>(
  dir: string,
  fileName: string,
): Promise<S | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, fileName), 'utf8')) as S;
  } catch {
    return undefined;
  }
}

/**
 * What a person can do about a failed fetch of `model`, in words that fit a transcript's notice; the
 * fetch's own message (the reason) already says what went wrong, where, and the mirror setting.
 */
export function fetchRemedy(error: unknown, model: Pick<FetchableModel, 'name' | 'mirrorSetting'>): string {
  const later = `restart the service or run \`npm run models -- fetch ${model.name}\``;
  if (!(error instanceof ModelFetchError)) return later;
  switch (error.reason) {
    case 'disk_full':
      return `free disk space under the data directory, then ${later}`;
    case 'checksum_mismatch':
    case 'not_found':
      return `point ${model.mirrorSetting} at the published files, then ${later}`;
    default:
      return `once this machine can reach it, ${later}`;
  }
}

export interface KnownModelSource {
  /** Where fetched models live. */
  dir: string;
  /** Models that came with the installation, looked in first (read only). */
  installedDir?: string | undefined;
  /** A mirror. */
  baseUrl?: string | undefined;
  fetch?: typeof fetch;
}

/**
 * A known model's path: present (in the installation's models, then the models directory) or fetched
 * now, its progress written as `fetching` states; `unavailable` (reason, remedy) when it cannot be.
 */
export async function knownModelPath(
  known: FetchableModel,
  source: KnownModelSource,
  write: (state: { state: 'fetching'; model: string; progress: ModelFetchProgress }) => unknown,
): Promise<{ path: string } | { state: 'unavailable'; model: string; reason: string; remedy: string }> {
  const present =
    (source.installedDir ? await presentModel(known, source.installedDir) : undefined) ??
    (await presentModel(known, source.dir));
  if (present) return { path: present };
  await write({ state: 'fetching', model: known.name, progress: { bytes: 0 } });
  try {
    const path = await fetchModel(known, {
      dir: source.dir,
      ...(source.baseUrl ? { baseUrl: source.baseUrl } : {}),
      ...(source.fetch ? { fetch: source.fetch } : {}),
      onProgress: (progress) => void write({ state: 'fetching', model: known.name, progress }),
    });
    return { path };
  } catch (error) {
    // Written into sentences ("…: <reason>; <remedy>."): without its own final full stop.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, '');
    return { state: 'unavailable', model: known.name, reason, remedy: fetchRemedy(error, known) };
  }
}
