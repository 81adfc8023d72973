import { spawnSync } from 'node:child_process';
import { access, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { knownModelPath, type ProvisionState, readState, stateWriter } from '../../models/model-state.ts';
import { sherpaOnnxBinding } from './voice-embedder.ts';
import { knownVoiceModel, VOICE_MODELS } from './voice-models.ts';

/**
 * Where the neural voice model stands: `off` (NOTES_VOICE_MODEL=off), else found or fetched as the
 * Whisper model is (model-fetch.ts), then checked to load in a process of its own, written to
 * `VOICE_STATE_FILE` for the queue workers and `/readyz`.
 */
export type VoiceModelState = ProvisionState<{ binding: string }> | { state: 'off'; model: 'off' };

export const VOICE_STATE_FILE = 'voice-state.json';

export interface VoiceProvisionOptions {
  /** `NOTES_VOICE_MODEL`: a known model's name, an `.onnx` file's path, or `off`. */
  model: string;
  /** The models directory (shared with Whisper's): fetched models and the state file. */
  dir: string;
  /** `NOTES_VOICE_MODEL_URL`: a mirror. */
  baseUrl?: string;
  /** Models that came with the installation, looked in first (read only). */
  installedDir?: string;
  onState?: (state: VoiceModelState) => void;
  fetch?: typeof fetch;
}

export async function provisionVoiceModel(options: VoiceProvisionOptions): Promise<VoiceModelState> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const write = stateWriter<VoiceModelState>(options.dir, VOICE_STATE_FILE, options.onState);
  const model = options.model;
  if (model === 'off') return write({ state: 'off', model: 'off' });
  await write({ state: 'checking', model });
  const binding = sherpaOnnxBinding();
  if ('problem' in binding) {
    return write({
      state: 'unavailable',
      model,
      reason: binding.problem,
      remedy: 'install sherpa-onnx-node',
    });
  }
  const ready = (path: string) => {
    const problem = loadProblem(binding.path, path);
    return write(
      problem
        ? { state: 'unavailable', model, reason: problem, remedy: 'check NOTES_VOICE_MODEL' }
        : { state: 'ready', model, path, binding: binding.path },
    );
  };
  const known = knownVoiceModel(model);
  if (!known) {
    if (!model.endsWith('.onnx')) {
      return write({
        state: 'unavailable',
        model,
        reason: `unknown voice model "${model}"`,
        remedy: `set NOTES_VOICE_MODEL to ${VOICE_MODELS.map((m) => m.name).join(', ')}, an .onnx file's path, or off`,
      });
    }
    const path = resolve(model);
    const found = await access(path).then(
      () => true,
      () => false,
    );
    return found
      ? ready(path)
      : write({
          state: 'unavailable',
          model,
          reason: `no voice model at ${path}`,
          remedy: 'check NOTES_VOICE_MODEL',
        });
  }
  const found = await knownModelPath(known, options, write);
  return 'state' in found ? write(found) : ready(found.path);
}

/**
 * sherpa-onnx ends its process, rather than throwing, on a model it cannot use (a missing metadata
 * key: exit 255; no `framework`: a crash): the model is first loaded in a throwaway process.
 */
function loadProblem(binding: string, modelPath: string): string | undefined {
  const script = `const s = require(${JSON.stringify(binding)}); const e = new s.SpeakerEmbeddingExtractor({ model: ${JSON.stringify(modelPath)}, numThreads: 1 }); process.stdout.write(String(e.dim));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (run.status === 0 && Number(run.stdout) > 0) return undefined;
  const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.status}`;
  const last = (run.stderr ?? '').trim().split('\n').at(-1)?.slice(0, 200);
  return `sherpa-onnx could not load the voice model (it ${how}${last ? `: ${last}` : ''})`;
}

/** The state the runtime last wrote, or undefined when it has written none (yet). */
export function readVoiceModelState(dir: string): Promise<VoiceModelState | undefined> {
  return readState<VoiceModelState>(dir, VOICE_STATE_FILE);
}
