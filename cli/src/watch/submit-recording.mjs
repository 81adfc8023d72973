// @ts-check

import { notePath } from '../commands/shared.mjs';
import { defaultTitle } from '../commands/transcribe-file.mjs';
import { ApiError, CliError } from '../errors.mjs';
import { EXIT } from '../exit-codes.mjs';
import { info } from '../output.mjs';
import { uploadFile } from '../upload.mjs';

/**
 * @typedef {object} SubmitOptions
 * @property {string} noteId derived from the content
 * @property {number | undefined} speakers
 * @property {string | undefined} collectionId
 */

/**
 * Submits a recording as note `noteId`, files it in the collection and uploads it
 * (submitTranscription, addNoteToCollection, PUT to the upload URL). Safe to repeat after any
 * interruption: the API is idempotent on the note ID, and a repeat reports what the service already
 * holds (200 completed, 202 without `upload` when it has the recording).
 * @param {import('../http.mjs').ApiClient} api
 * @param {import('./folder-scan.mjs').FolderEntry} entry
 * @param {SubmitOptions} options
 * @returns {Promise<'submitted' | 'completed'>} where the transcription stands
 */
export async function submitRecording(api, entry, options) {
  const submit = () =>
    api.request('POST', `${notePath(options.noteId)}/transcription`, {
      body: {
        title: defaultTitle(entry.name),
        content_type: entry.contentType,
        size_bytes: entry.size,
        speakers_expected: options.speakers,
      },
      what: `transcribe ${entry.name}`,
    });
  const submitted = await submit();
  if (options.collectionId) await fileInCollection(api, options.collectionId, options.noteId, entry.name);
  if (submitted.status === 200) return 'completed';

  const job = /** @type {import('../types.mjs').JobStatus} */ (submitted.body);
  if (!job.upload) return 'submitted';
  try {
    await uploadFile(job.upload, entry.path, entry.size, entry.name);
  } catch (error) {
    if (!(error instanceof CliError) || error.exitCode !== EXIT.REJECTED) throw error;
    // The storage refused the PUT (e.g. 412: a recording is stored already). The note ID comes from
    // these very bytes, so ask the service where the note stands before calling it a failure.
    const again = await submit();
    if (again.status === 200) return 'completed';
    if (/** @type {import('../types.mjs').JobStatus} */ (again.body).upload) throw error;
  }
  return 'submitted';
}

/**
 * Files the note in the collection (idempotent). A refusal (the collection was deleted meanwhile)
 * is said on stderr and does not stop the transcription.
 * @param {import('../http.mjs').ApiClient} api
 * @param {string} collectionId
 * @param {string} noteId
 * @param {string} name
 */
async function fileInCollection(api, collectionId, noteId, name) {
  try {
    await api.request('POST', `/v1/collections/${encodeURIComponent(collectionId)}/notes`, {
      body: { note_id: noteId },
      what: `collections add ${noteId}`,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.exitCode === EXIT.AUTH) throw error;
    info(`${name}: not filed in the collection: ${error.message}`);
  }
}
