/**
 * `npm run models -- list`: the models the service knows (whisper.cpp's, the diarizer's voice model),
 * their size, and which are in the local data directory (NOTES_DATA_DIR/models).
 * `npm run models -- fetch <name>`: downloads one there, verified against its pinned SHA-256, and
 * prints its path; a cut download resumes on the next run. NOTES_WHISPER_MODEL_URL (NOTES_VOICE_MODEL_URL
 * for the voice model) names a mirror.
 * Exit codes: 0 done, 1 the fetch failed (why on stderr), 2 usage.
 */
import { parseArgs } from 'node:util';
import {
  type FetchableModel,
  fetchModel,
  ModelFetchError,
  type ModelFetchProgress,
  presentModel,
} from '../../adapters/models/model-fetch.ts';
import { DEFAULT_VOICE_MODEL, VOICE_MODELS } from '../../adapters/speech/voices/voice-models.ts';
import {
  DEFAULT_WHISPER_MODEL,
  WHISPER_MODELS,
  whisperModelDir,
} from '../../adapters/speech/whisper/whisper-models.ts';

const USAGE = 'usage: npm run models -- list\n       npm run models -- fetch <name>';
const MiB = 1024 * 1024;
/** Without a terminal to rewrite a line in (a log, CI), one line per this share of the download. */
const LOG_STEP = 0.05;
/** The same when the size is unknown. */
const LOG_STEP_BYTES = 10 * MiB;

const MODELS: readonly FetchableModel[] = [...WHISPER_MODELS, ...VOICE_MODELS];
const DEFAULTS = new Set([DEFAULT_WHISPER_MODEL, DEFAULT_VOICE_MODEL]);

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const [command, name, ...extra] = positionals;
// Where the service looks: NOTES_WHISPER_MODEL_DIR, else `models` in NOTES_DATA_DIR (`.notes-data`).
const modelsDir = whisperModelDir({ NOTES_WHISPER_MODEL_DIR: process.env.NOTES_WHISPER_MODEL_DIR });

if (command === 'list' && name === undefined) {
  await list();
} else if (command === 'fetch' && name !== undefined && extra.length === 0) {
  await fetchNamedModel(name);
} else {
  usage();
}

async function list(): Promise<void> {
  for (const model of MODELS) {
    const path = await presentModel(model, modelsDir);
    const what =
      'multilingual' in model ? (model.multilingual ? 'multilingual' : 'English only') : 'voices (speakers)';
    const columns = [
      model.name.padEnd(21),
      `${Math.round(model.approxBytes / MiB)} MiB`.padStart(8),
      what.padEnd(17),
      path ? `present: ${path}` : 'not present',
    ];
    if (DEFAULTS.has(model.name)) columns.push('(default)');
    process.stdout.write(`${columns.join('  ')}\n`);
  }
}

async function fetchNamedModel(modelName: string): Promise<void> {
  const model = MODELS.find((known) => known.name === modelName);
  if (!model) {
    console.error(
      `Unknown model ${JSON.stringify(modelName)}: known ones are ${MODELS.map((known) => known.name).join(', ')}`,
    );
    return usage();
  }
  const baseUrl = mirrorUrl(model);
  const progress = progressLine(model);
  try {
    const path = await fetchModel(model, {
      dir: modelsDir,
      ...(baseUrl ? { baseUrl } : {}),
      onProgress: progress.show,
    });
    progress.end();
    process.stdout.write(`${path}\n`);
  } catch (error) {
    progress.end();
    console.error(error instanceof Error ? error.message : String(error));
    // A ModelFetchError's message is the whole story; anything else is unexpected, and says so.
    if (!(error instanceof ModelFetchError) && error instanceof Error && error.stack)
      console.error(error.stack);
    process.exit(1);
  }
}

/** The model's mirror setting, checked here so that a typo is a usage error, not a failed download. */
function mirrorUrl(model: FetchableModel): string | undefined {
  const value = process.env[model.mirrorSetting]?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not shown: it may hold a token.
    console.error(`${model.mirrorSetting} is not a URL: give one like ${model.defaultBaseUrl}`);
    return usage();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    console.error(`${model.mirrorSetting} must be an http(s) URL without a user name or password`);
    return usage();
  }
  return value;
}

/** `base.en: 12.3 MiB of 141.1 MiB (8 %), 40 s left` on stderr: rewritten in place on a terminal. */
function progressLine(model: FetchableModel): {
  show: (progress: ModelFetchProgress) => void;
  end: () => void;
} {
  const tty = process.stderr.isTTY === true;
  let lastStep = -1;
  let open = false;
  return {
    show(progress) {
      const line = describe(model, progress);
      if (tty) {
        process.stderr.write(`\r${line}\x1b[K`);
        open = true;
        return;
      }
      const step =
        progress.fraction === undefined
          ? Math.floor(progress.bytes / LOG_STEP_BYTES)
          : Math.floor(progress.fraction / LOG_STEP + 1e-9);
      if (step <= lastStep) return;
      lastStep = step;
      process.stderr.write(`${line}\n`);
    },
    end() {
      if (open) process.stderr.write('\n');
      open = false;
    },
  };
}

function describe(model: FetchableModel, progress: ModelFetchProgress): string {
  const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
  let line = `${model.name}: ${mib(progress.bytes)}`;
  if (progress.totalBytes !== undefined) line += ` of ${mib(progress.totalBytes)}`;
  if (progress.fraction !== undefined) line += ` (${Math.floor(progress.fraction * 100)} %)`;
  if (progress.etaSeconds !== undefined && progress.fraction !== 1)
    line += `, ${duration(progress.etaSeconds)} left`;
  return line;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}
