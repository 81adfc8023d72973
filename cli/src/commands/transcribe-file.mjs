// @ts-check
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { contentTypeFor } from '../content-types.mjs';
import { UsageError } from '../errors.mjs';
import { info } from '../output.mjs';
import { describeJob } from '../poll.mjs';
import { uploadFile } from '../upload.mjs';
import { notePath } from './shared.mjs';
import { reportNotice, waitForTranscription } from './transcription.mjs';

const COMMAND = 'transcribe';
const TITLE_MAX = 200;
/** Uploads are noticed asynchronously (storage event -> queue), so the stage can lag behind. */
export const PICKUP_HINT = 'The upload was received; the service picks it up within a few seconds.';

/**
 * @typedef {object} TranscribeSettings
 * @property {string} noteId
 * @property {string | undefined} title default: the file name without its extension
 * @property {string | undefined} contentType default: from the extension
 * @property {number | undefined} speakers
 * @property {boolean} wait
 * @property {number} timeoutSeconds
 */

/**
 * @typedef {object} TranscribeOutcome
 * @property {unknown} document what to print: the transcript with `note_id` first (--wait), or the
 *   job status
 * @property {string} [hint] said on stderr after the document
 */

/**
 * Submits one file as a new note, uploads it and, with `wait`, polls until its transcript. Progress
 * goes to stderr; errors are thrown (CliError) with their exit code.
 * @param {import('../http.mjs').ApiClient} api
 * @param {string} file
 * @param {TranscribeSettings} settings
 * @returns {Promise<TranscribeOutcome>}
 */
export async function transcribeFile(api, file, settings) {
  const { noteId } = settings;
  const contentType = settings.contentType ?? contentTypeFor(file);
  if (!contentType) {
    throw new UsageError(
      `cannot tell the recording type of '${basename(file)}' from its extension; pass --content-type (e.g. audio/mpeg)`,
      COMMAND,
    );
  }
  const size = await fileSize(file);
  const title = settings.title ?? defaultTitle(file);
  if (!title.trim()) throw new UsageError('--title must not be empty', COMMAND);

  info(`Note ${noteId}: submitting '${basename(file)}' (${contentType}).`);
  const submitted = await api.request('POST', `${notePath(noteId)}/transcription`, {
    body: { title, content_type: contentType, size_bytes: size, speakers_expected: settings.speakers },
    what: `transcribe ${noteId}`,
  });
  const job = /** @type {import('../types.mjs').JobStatus} */ (submitted.body);

  if (submitted.status === 200) {
    info(`Note ${noteId} is already transcribed; nothing new was started.`);
  } else if (job.upload) {
    await uploadFile(job.upload, file, size, basename(file));
  } else {
    info(`Note ${noteId} already has its audio; the transcription is ${job.status} (stage ${job.stage}).`);
  }

  if (settings.wait) {
    const done = await waitForTranscription(api, noteId, {
      timeoutSeconds: settings.timeoutSeconds,
      retry: `notes transcribe ${file} --note-id ${noteId}`,
      awaitingUploadHint: PICKUP_HINT,
    });
    reportNotice(done);
    // The note ID first, so that a script can go on with it (insights, artifacts, ask).
    return { document: { note_id: noteId, .../** @type {object} */ (done.body) } };
  }
  if (submitted.status === 200) {
    return { document: job, hint: `Get the transcript with 'notes transcription get ${noteId}'.` };
  }
  // The job status after the upload (the submission's status still said awaiting_upload).
  const current = await api.request('GET', `${notePath(noteId)}/transcription`, {
    what: `transcription get ${noteId}`,
  });
  if (current.status !== 202) return { document: current.body };
  const status = /** @type {Partial<import('../types.mjs').JobStatus>} */ (current.body ?? {});
  const pending =
    `Not a result yet: this is the job status (${describeJob(status)}). ` +
    `Poll it with 'notes transcription get ${noteId}', or add --wait.`;
  return {
    document: current.body,
    hint: status.stage === 'awaiting_upload' ? `${pending}\n${PICKUP_HINT}` : pending,
  };
}

/**
 * @param {string} file
 * @returns {Promise<number>}
 */
async function fileSize(file) {
  /** @type {import('node:fs').Stats} */
  let stats;
  try {
    stats = await stat(file);
  } catch (error) {
    const code = /** @type {{ code?: string }} */ (error).code;
    throw new UsageError(`cannot read '${file}'${code ? ` (${code})` : ''}`, COMMAND);
  }
  if (!stats.isFile()) throw new UsageError(`'${file}' is not a file`, COMMAND);
  if (stats.size === 0) throw new UsageError(`'${file}' is empty`, COMMAND);
  return stats.size;
}

/**
 * The file name without its extension, at most 200 characters.
 * @param {string} file
 * @returns {string}
 */
export function defaultTitle(file) {
  const name = basename(file);
  const stem = basename(file, extname(file)).trim() || name;
  return [...stem].slice(0, TITLE_MAX).join('');
}
