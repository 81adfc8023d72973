import { access, mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { knownModelPath, type ProvisionState, readState, stateWriter } from '../../models/model-state.ts';
import { knownWhisperModel, WHISPER_MODELS } from './whisper-models.ts';
import { whisperBinding } from './whisper-speech-to-text.ts';

/**
 * Where the Whisper engine stands, as the runtime's start-up made it so, written to a small file
 * (`STATE_FILE` in the models directory) that the queue workers (in their own thread) and `/readyz`
 * read: `checking` and `fetching` until the model is usable (`ready`) or cannot be (`unavailable`).
 */
export type WhisperState = ProvisionState<{ multilingual: boolean }>;

export const STATE_FILE = 'whisper-state.json';

export interface WhisperProvisionOptions {
  /** `NOTES_WHISPER_MODEL`: a known model's name or the path of a ggml file. */
  model: string;
  /** `NOTES_WHISPER_MODEL_DIR`: where fetched models and the state file live. */
  dir: string;
  /** `NOTES_WHISPER_MODEL_URL`: a mirror. */
  baseUrl?: string;
  /**
   * Models that came with the installation, looked in before `dir` (the container image's `models`
   * folder, filled by its WHISPER_MODEL build argument and checked then): read only, never fetched into.
   */
  installedDir?: string;
  onState?: (state: WhisperState) => void;
  fetch?: typeof fetch;
}

/**
 * Makes the configured Whisper model usable once: a local file is checked, a known model is found in
 * the models directory or fetched there (model-fetch.ts: pinned checksum, resumable, free space
 * checked). Every change of state is written to the state file; progress at most once a second.
 */
export async function provisionWhisper(options: WhisperProvisionOptions): Promise<WhisperState> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const write = stateWriter<WhisperState>(options.dir, STATE_FILE, options.onState);
  const model = options.model;
  await write({ state: 'checking', model });
  const binding = whisperBinding();
  if ('problem' in binding) {
    return write({ state: 'unavailable', model, reason: binding.problem, remedy: 'install the binding' });
  }
  if (isAbsolute(model) || model.endsWith('.bin')) {
    const path = resolve(model);
    const found = await access(path).then(
      () => true,
      () => false,
    );
    return write(
      found
        ? { state: 'ready', model, path, multilingual: !/\.en(\.|-|$)/.test(path) }
        : {
            state: 'unavailable',
            model,
            reason: `no model file at ${path}`,
            remedy: 'check NOTES_WHISPER_MODEL',
          },
    );
  }
  const known = knownWhisperModel(model);
  if (!known) {
    return write({
      state: 'unavailable',
      model,
      reason: `unknown Whisper model "${model}"`,
      remedy: `set NOTES_WHISPER_MODEL to one of ${WHISPER_MODELS.map((m) => m.name).join(', ')} or a ggml file's path`,
    });
  }
  const found = await knownModelPath(known, options, write);
  if ('state' in found) return write(found);
  return write({ state: 'ready', model, path: found.path, multilingual: known.multilingual });
}

/** The state the runtime last wrote, or undefined when it has written none (yet). */
export function readWhisperState(dir: string): Promise<WhisperState | undefined> {
  return readState<WhisperState>(dir, STATE_FILE);
}
