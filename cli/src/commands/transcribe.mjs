// @ts-check
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { flag, integerOption, noteIdArg, stringOption, timeoutOption } from '../args.mjs';
import { CONTENT_TYPES, contentTypeFor } from '../content-types.mjs';
import { UsageError } from '../errors.mjs';
import { info, printJson } from '../output.mjs';
import { uploadFile } from '../upload.mjs';
import { notePath, printResponse, waitOptions } from './shared.mjs';
import { reportNotice, TRANSCRIPTION_TIMEOUT_SECONDS, waitForTranscription } from './transcription.mjs';

const COMMAND = 'transcribe';
const TITLE_MAX = 200;
/** Uploads are noticed asynchronously (storage event -> queue), so the stage can lag behind. */
const PICKUP_HINT = 'The upload was received; the service picks it up within a few seconds.';

/** @type {import('../types.mjs').CommandSpec} */
export const transcribe = {
  name: 'transcribe',
  summary:
    'Upload an audio file for transcription (creates the note); --wait prints the transcript and note_id',
  operation: 'submitTranscription, then getTranscription',
  args: ['<file>'],
  options: {
    title: { type: 'string', value: 'T', description: 'Note title (default: the file name)' },
    'note-id': {
      type: 'string',
      value: 'UUID',
      description: 'Note ID to use (default: a new UUID); the same ID resumes or retries that note',
    },
    'content-type': {
      type: 'string',
      value: 'T',
      description: `Recording type, audio or video (default: from the extension: ${Object.keys(CONTENT_TYPES).join(', ')})`,
    },
    speakers: {
      type: 'string',
      value: 'N',
      description: 'How many people speak, 1 to 10 (diarization hint)',
    },
    ...waitOptions(TRANSCRIPTION_TIMEOUT_SECONDS, 'the transcript'),
  },
  details:
    'Submits the note, then PUTs the file to the returned upload URL with exactly the returned\n' +
    'headers (progress on stderr for files over 1 MiB). Without --wait it prints the job status\n' +
    "(not a result yet; 'notes transcription get <id>' polls it). With --wait it prints the\n" +
    'transcript with the note ID added at the top level (note_id), and on stderr the notice when\n' +
    'no speech was heard (no_speech) or the recogniser could not follow it (low_confidence).',
  examples: [
    'notes transcribe meeting.mp3 --title "Weekly product sync" --wait',
    'notes transcribe interview.wav --speakers 2',
  ],
  async run({ positionals, values, client }) {
    const file = positionals[0] ?? '';
    const noteIdOption = stringOption(values, 'note-id');
    const noteId = noteIdOption === undefined ? randomUUID() : noteIdArg(noteIdOption, COMMAND);
    const contentType = stringOption(values, 'content-type') ?? contentTypeFor(file);
    if (!contentType) {
      throw new UsageError(
        `cannot tell the recording type of '${basename(file)}' from its extension; pass --content-type (e.g. audio/mpeg)`,
        COMMAND,
      );
    }
    const speakers = integerOption(values, 'speakers', 1, 10, COMMAND);
    const timeoutSeconds = timeoutOption(values, TRANSCRIPTION_TIMEOUT_SECONDS, COMMAND);
    const size = await fileSize(file);
    const title = stringOption(values, 'title') ?? defaultTitle(file);
    if (!title.trim()) throw new UsageError('--title must not be empty', COMMAND);
    const api = client();

    info(`Note ${noteId}: submitting '${basename(file)}' (${contentType}).`);
    const submitted = await api.request('POST', `${notePath(noteId)}/transcription`, {
      body: { title, content_type: contentType, size_bytes: size, speakers_expected: speakers },
      what: `transcribe ${noteId}`,
    });
    const job = /** @type {import('../types.mjs').JobStatus} */ (submitted.body);
    const retry = `notes transcribe ${file} --note-id ${noteId}`;

    if (submitted.status === 200) {
      info(`Note ${noteId} is already transcribed; nothing new was started.`);
    } else if (job.upload) {
      await uploadFile(job.upload, file, size, basename(file));
    } else {
      info(`Note ${noteId} already has its audio; the transcription is ${job.status} (stage ${job.stage}).`);
    }

    if (flag(values, 'wait')) {
      const done = await waitForTranscription(api, noteId, {
        timeoutSeconds,
        retry,
        awaitingUploadHint: PICKUP_HINT,
      });
      // The note ID first, so that a script can go on with it (insights, artifacts, ask).
      printJson({ note_id: noteId, .../** @type {object} */ (done.body) });
      reportNotice(done);
      return;
    }
    if (submitted.status === 200) {
      printJson(job);
      info(`Get the transcript with 'notes transcription get ${noteId}'.`);
      return;
    }
    // The job status after the upload (the submission's status still said awaiting_upload).
    const current = await api.request('GET', `${notePath(noteId)}/transcription`, {
      what: `transcription get ${noteId}`,
    });
    printResponse(current, `notes transcription get ${noteId}`);
    if (
      /** @type {Partial<import('../types.mjs').JobStatus>} */ (current.body)?.stage === 'awaiting_upload'
    ) {
      info(PICKUP_HINT);
    }
  },
};

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
function defaultTitle(file) {
  const name = basename(file);
  const stem = basename(file, extname(file)).trim() || name;
  return [...stem].slice(0, TITLE_MAX).join('');
}
