// @ts-check
import { flag, noteIdArg, timeoutOption } from '../args.mjs';
import { pollUntilDone } from '../poll.mjs';
import { notePath, printResponse, shortId, waitOptions } from './shared.mjs';

const GENERATION_TIMEOUT_SECONDS = 600;

/**
 * @param {import('../http.mjs').ApiClient} api
 * @param {string} noteId
 * @param {number} timeoutSeconds
 * @param {import('../http.mjs').ApiResponse} [first]
 */
async function waitForInsights(api, noteId, timeoutSeconds, first) {
  const done = await pollUntilDone({
    label: `Insights of note ${shortId(noteId)}`,
    timeoutSeconds,
    checkLater: `notes insights get ${noteId}`,
    retry: `notes insights generate ${noteId}`,
    first,
    read: (deadline) =>
      api.request('GET', `${notePath(noteId)}/insights`, {
        accept: [409],
        deadline,
        what: `insights get ${noteId}`,
      }),
  });
  printResponse(done, '');
}

/** @type {import('../types.mjs').CommandSpec} */
export const insightsGenerate = {
  name: 'insights generate',
  summary: 'Start generating Insights from the transcript; --wait prints them',
  operation: 'generateInsights',
  args: ['<id>'],
  options: waitOptions(GENERATION_TIMEOUT_SECONDS, 'the Insights'),
  examples: ['notes insights generate 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --wait'],
  async run({ positionals, values, client }) {
    const noteId = noteIdArg(positionals[0], 'insights generate');
    const timeoutSeconds = timeoutOption(values, GENERATION_TIMEOUT_SECONDS, 'insights generate');
    const api = client();
    const started = await api.request('POST', `${notePath(noteId)}/insights`, {
      body: {},
      what: `insights generate ${noteId}`,
    });
    if (flag(values, 'wait')) await waitForInsights(api, noteId, timeoutSeconds, started);
    else printResponse(started, `notes insights get ${noteId}`);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const insightsGet = {
  name: 'insights get',
  summary: "Print a note's Insights, or the job status while they are generated",
  operation: 'getInsights',
  args: ['<id>'],
  options: waitOptions(GENERATION_TIMEOUT_SECONDS, 'the Insights'),
  examples: ['notes insights get 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34'],
  async run({ positionals, values, client }) {
    const noteId = noteIdArg(positionals[0], 'insights get');
    const timeoutSeconds = timeoutOption(values, GENERATION_TIMEOUT_SECONDS, 'insights get');
    const api = client();
    if (flag(values, 'wait')) {
      await waitForInsights(api, noteId, timeoutSeconds);
      return;
    }
    const response = await api.request('GET', `${notePath(noteId)}/insights`, {
      what: `insights get ${noteId}`,
    });
    printResponse(response, `notes insights get ${noteId}`);
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const insightsGroup = {
  name: 'insights',
  summary: 'Structured Insights (summary, key points, action items, ...) from a transcribed note.',
  commands: [insightsGenerate, insightsGet],
};
