// @ts-check
import { flag, noteIdArg, oneOf, stringOption, timeoutOption } from '../args.mjs';
import { pollUntilDone } from '../poll.mjs';
import { notePath, printResponse, shortId, waitOptions } from './shared.mjs';

const GENERATION_TIMEOUT_SECONDS = 600;
const KINDS = /** @type {const} */ (['epiphany', 'deep_research', 'podcast']);

/**
 * @param {string[]} positionals
 * @param {string} command
 * @returns {{ noteId: string, kind: string, path: string }}
 */
function target(positionals, command) {
  const noteId = noteIdArg(positionals[0], command);
  const kind = oneOf(positionals[1], KINDS, 'the artifact kind', command);
  return { noteId, kind, path: `${notePath(noteId)}/artifacts/${kind}` };
}

/**
 * @param {import('../http.mjs').ApiClient} api
 * @param {{ noteId: string, kind: string, path: string }} artifact
 * @param {number} timeoutSeconds
 * @param {import('../http.mjs').ApiResponse} [first]
 */
async function waitForArtifact(api, artifact, timeoutSeconds, first) {
  const done = await pollUntilDone({
    label: `${artifact.kind} of note ${shortId(artifact.noteId)}`,
    timeoutSeconds,
    checkLater: `notes artifacts get ${artifact.noteId} ${artifact.kind}`,
    retry: `notes artifacts generate ${artifact.noteId} ${artifact.kind}`,
    first,
    read: (deadline) =>
      api.request('GET', artifact.path, {
        accept: [409],
        deadline,
        what: `artifacts get ${artifact.noteId} ${artifact.kind}`,
      }),
  });
  printResponse(done, '');
}

/** @type {import('../types.mjs').CommandSpec} */
export const artifactsGenerate = {
  name: 'artifacts generate',
  summary: 'Generate an epiphany, deep_research or podcast artifact; --wait prints it',
  operation: 'generateNoteArtifact',
  args: ['<id>', '<epiphany|deep_research|podcast>'],
  options: {
    language: {
      type: 'string',
      value: 'L',
      description: "Output language: 'auto' (the transcript's, default) or a code such as en, pt-BR",
    },
    regenerate: { type: 'boolean', description: 'Generate again even if the artifact exists' },
    ...waitOptions(GENERATION_TIMEOUT_SECONDS, 'the artifact'),
  },
  details: 'An existing artifact is printed at once (HTTP 200) unless --regenerate is given.',
  examples: [
    'notes artifacts generate 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 epiphany --wait',
    'notes artifacts generate 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 podcast --language en --regenerate',
  ],
  async run({ positionals, values, client }) {
    const command = 'artifacts generate';
    const artifact = target(positionals, command);
    const timeoutSeconds = timeoutOption(values, GENERATION_TIMEOUT_SECONDS, command);
    const language = stringOption(values, 'language');
    const regenerate = flag(values, 'regenerate');
    const api = client();
    const started = await api.request('POST', artifact.path, {
      body: { ...(language === undefined ? {} : { language }), ...(regenerate ? { regenerate } : {}) },
      what: `artifacts generate ${artifact.noteId} ${artifact.kind}`,
    });
    if (started.status === 202 && flag(values, 'wait')) {
      await waitForArtifact(api, artifact, timeoutSeconds, started);
      return;
    }
    printResponse(started, `notes artifacts get ${artifact.noteId} ${artifact.kind}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const artifactsGet = {
  name: 'artifacts get',
  summary: 'Print an artifact, or the job status while it is generated',
  operation: 'getNoteArtifact',
  args: ['<id>', '<epiphany|deep_research|podcast>'],
  options: waitOptions(GENERATION_TIMEOUT_SECONDS, 'the artifact'),
  examples: ['notes artifacts get 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 podcast'],
  async run({ positionals, values, client }) {
    const command = 'artifacts get';
    const artifact = target(positionals, command);
    const timeoutSeconds = timeoutOption(values, GENERATION_TIMEOUT_SECONDS, command);
    const api = client();
    if (flag(values, 'wait')) {
      await waitForArtifact(api, artifact, timeoutSeconds);
      return;
    }
    const response = await api.request('GET', artifact.path, {
      what: `artifacts get ${artifact.noteId} ${artifact.kind}`,
    });
    printResponse(response, `notes artifacts get ${artifact.noteId} ${artifact.kind}`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const artifactsGroup = {
  name: 'artifacts',
  summary: 'Generated content from a transcribed note: epiphany, deep_research, podcast.',
  commands: [artifactsGenerate, artifactsGet],
};
