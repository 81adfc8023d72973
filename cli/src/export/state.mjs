// @ts-check
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.mjs';
import { EXIT } from '../exit-codes.mjs';
import { writeFileAtomically } from './vault-files.mjs';

/** In the export folder; a dot file, so Obsidian and Logseq do not show it as a note. */
export const STATE_FILE_NAME = '.notes-export.json';
const STATE_VERSION = 1;

/**
 * What the export knows of one note: where its file is and what it last wrote there.
 * @typedef {object} ExportedNote
 * @property {string} file path under the export folder, `/`-separated (the person may move it)
 * @property {string} title the title when it was last written
 * @property {string} sha256 SHA-256 of the content last written to `file`: a file that no longer
 *   matches was edited by the person and is never overwritten
 * @property {string | null} note_etag the getNote ETag that content was made from (If-None-Match)
 * @property {number | null} transcript_revision
 * @property {number | null} insights_generated_at epoch ms, null without Insights
 * @property {number} exported_at epoch ms of the last write
 * @property {{ file: string, sha256: string }} [conflict] the newer version written beside an edited file
 * @property {'trashed' | 'deleted' | 'transcript-removed' | 'not-in-collection'} [left] why the note is no longer
 *   exported (its file stays)
 */

/**
 * @typedef {object} ExportState
 * @property {number} version
 * @property {string} service base URL the notes come from
 * @property {string} layout what the Markdown was made with (markdown.mjs LAYOUT and the app URL):
 *   when it changes, every note is rendered again instead of trusting the ETags
 * @property {Record<string, ExportedNote>} notes by note ID
 */

/**
 * Reads the state file, or a new state when the folder has none. A state file that cannot be read
 * stops the export: going on without it would take every exported file for one the person made.
 * @param {string} folder
 * @param {string} service
 * @returns {ExportState}
 */
export function loadState(folder, service) {
  const path = join(folder, STATE_FILE_NAME);
  if (!existsSync(path)) return { version: STATE_VERSION, service, layout: '', notes: {} };
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(
      `cannot read the export state ${path}: ${error instanceof Error ? error.message : String(error)}\n` +
        'Nothing was exported. Move the file away to start a new export (files already in the folder are kept).',
      EXIT.UNEXPECTED,
    );
  }
  const state = /** @type {Partial<ExportState>} */ (parsed);
  if (
    typeof state !== 'object' ||
    state === null ||
    state.version !== STATE_VERSION ||
    typeof state.notes !== 'object' ||
    state.notes === null
  ) {
    throw new CliError(
      `the export state ${path} is not one this version of notes writes (version ${String(state?.version)}). Nothing was exported.`,
      EXIT.UNEXPECTED,
    );
  }
  return {
    version: STATE_VERSION,
    service: typeof state.service === 'string' ? state.service : service,
    layout: typeof state.layout === 'string' ? state.layout : '',
    notes: state.notes,
  };
}

/**
 * Writes the state file atomically (temporary file, then rename): an interrupted export leaves the
 * previous state or the new one, never half of one. Synchronous, so that a Ctrl-C handler never
 * runs in the middle of it.
 * @param {string} folder
 * @param {ExportState} state
 */
export function saveState(folder, state) {
  writeFileAtomically(join(folder, STATE_FILE_NAME), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * @param {string | Buffer} content
 * @returns {string} hex SHA-256
 */
export function sha256(content) {
  return createHash('sha256').update(content).digest('hex');
}
