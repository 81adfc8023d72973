// @ts-check
import { flag, noteIdArg, oneOf, requireConfirmation, stringOption, timeoutOption } from '../args.mjs';
import { info } from '../output.mjs';
import { pollUntilDone } from '../poll.mjs';
import { CORRECTION_COMMANDS } from './corrections.mjs';
import { notePath, printEtag, printResponse, shortId, waitOptions } from './shared.mjs';

export const TRANSCRIPTION_TIMEOUT_SECONDS = 1800;
const FORMATS = /** @type {const} */ (['json', 'srt', 'vtt', 'md']);

/**
 * Polls getTranscription until the transcript (or a terminal error).
 * @param {import('../http.mjs').ApiClient} api
 * @param {string} noteId
 * @param {{ timeoutSeconds: number, format?: string, retry: string, awaitingUploadHint?: string }} options
 * @returns {Promise<import('../http.mjs').ApiResponse>}
 */
export function waitForTranscription(api, noteId, options) {
  const format = options.format && options.format !== 'json' ? options.format : undefined;
  return pollUntilDone({
    label: `transcription of note ${shortId(noteId)}`,
    timeoutSeconds: options.timeoutSeconds,
    checkLater: `notes transcription get ${noteId}${format ? ` --format ${format}` : ''}`,
    retry: options.retry,
    awaitingUploadHint: options.awaitingUploadHint,
    read: (deadline) =>
      api.request('GET', `${notePath(noteId)}/transcription`, {
        query: { format },
        accept: [409],
        deadline,
        what: `transcription get ${noteId}`,
      }),
  });
}

/**
 * Says on stderr what the recogniser found about the recording (no speech heard, or speech it could
 * not follow), so that a person reading the JSON on stdout, or a script's log, sees it.
 * @param {import('../http.mjs').ApiResponse} response
 */
export function reportNotice(response) {
  const body = /** @type {{ notice?: { code?: unknown, detail?: unknown } | null } | null} */ (response.body);
  const notice = response.status === 200 && body && typeof body === 'object' ? body.notice : undefined;
  if (notice && typeof notice.code === 'string' && typeof notice.detail === 'string') {
    info(`Notice (${notice.code}): ${notice.detail}`);
  }
}

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionGet = {
  name: 'transcription get',
  summary: 'Print the transcript (JSON, or SRT/WebVTT/Markdown text), or the job status while it runs',
  operation: 'getTranscription',
  args: ['<id>'],
  options: {
    format: {
      type: 'string',
      value: 'json|srt|vtt|md',
      description: 'json (default) or a text export printed as is',
    },
    ...waitOptions(TRANSCRIPTION_TIMEOUT_SECONDS, 'the transcript'),
  },
  examples: [
    'notes transcription get 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34',
    'notes transcription get 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --format srt > meeting.srt',
  ],
  async run({ positionals, values, client }) {
    const command = 'transcription get';
    const noteId = noteIdArg(positionals[0], command);
    const formatValue = stringOption(values, 'format');
    const format = formatValue === undefined ? 'json' : oneOf(formatValue, FORMATS, '--format', command);
    const timeoutSeconds = timeoutOption(values, TRANSCRIPTION_TIMEOUT_SECONDS, command);
    const api = client();
    const retry = `notes transcribe <file> --note-id ${noteId}`;
    if (flag(values, 'wait')) {
      const done = await waitForTranscription(api, noteId, {
        timeoutSeconds,
        format,
        retry,
        awaitingUploadHint: `The audio of note ${noteId} has not been uploaded: the job cannot start until it is (notes transcribe <file> --note-id ${noteId}).`,
      });
      printResponse(done, '');
      reportNotice(done);
      return;
    }
    const response = await api.request('GET', `${notePath(noteId)}/transcription`, {
      query: { format: format === 'json' ? undefined : format },
      what: `transcription get ${noteId}`,
    });
    printResponse(
      response,
      `notes transcription get ${noteId}${format === 'json' ? '' : ` --format ${format}`}`,
    );
    // The JSON representation's ETag is what corrections take as --if-match.
    if (format === 'json' && response.status === 200) printEtag(response);
    reportNotice(response);
  },
};

/** @type {import('../types.mjs').CommandSpec} */
export const transcriptionDelete = {
  name: 'transcription delete',
  summary: 'Remove the transcript, Insights and artifacts of a note; the note stays',
  operation: 'deleteTranscription',
  args: ['<id>'],
  required: '--confirm <id>',
  options: {
    confirm: {
      type: 'string',
      value: 'id',
      description: 'Required: the same note ID again, to confirm the deletion',
    },
  },
  details:
    "The note and its audio stay: 'notes transcribe <file> --note-id <id>' transcribes it again.\n" +
    'Prints nothing on stdout (HTTP 204).',
  examples: [
    'notes transcription delete 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34 --confirm 3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34',
  ],
  async run({ positionals, values, client }) {
    const noteId = noteIdArg(positionals[0], 'transcription delete');
    requireConfirmation(noteId, stringOption(values, 'confirm'), 'transcription delete');
    await client().request('DELETE', `${notePath(noteId)}/transcription`, {
      what: `transcription delete ${noteId}`,
    });
    info(
      `Removed the transcription, Insights and artifacts of note ${noteId}; the note and its audio remain.`,
    );
  },
};

/** @type {import('../types.mjs').GroupSpec} */
export const transcriptionGroup = {
  name: 'transcription',
  summary: "Read, correct or remove a note's transcription ('notes transcribe' uploads audio).",
  commands: [transcriptionGet, ...CORRECTION_COMMANDS, transcriptionDelete],
};
