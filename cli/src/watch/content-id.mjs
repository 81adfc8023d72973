// @ts-check
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

/**
 * The namespace of the note IDs `notes watch` derives (a fixed random UUID: IDs made from the same
 * content elsewhere, with another namespace, never collide with these).
 */
const WATCH_NAMESPACE = '435604f0-c305-4d6a-83b2-4b68861caa02';

/**
 * The SHA-256 of a file's bytes, read as a stream (recordings can be gigabytes).
 * @param {string} path
 * @returns {Promise<string>} lower-case hex
 */
export async function sha256OfFile(path) {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * The note ID of a recording: a name-based UUID (RFC 4122 version 5) of its SHA-256, so that every
 * attempt to send the same bytes, after a crash, a restart, a lost state file or under another name,
 * reaches the same note, which the API makes idempotent (submitTranscription on a known note ID
 * never creates a second note). Notes belong to an account, so two accounts never share one.
 * @param {string} sha256 hex
 * @returns {string}
 */
export function noteIdForContent(sha256) {
  const namespace = Buffer.from(WATCH_NAMESPACE.replaceAll('-', ''), 'hex');
  const bytes = createHash('sha1').update(namespace).update(`sha256:${sha256}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50; // version 5
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
