// @ts-check
import { extname } from 'node:path';

/** Audio content type by file extension (the API's AudioContentType values). */
export const CONTENT_TYPES = Object.freeze({
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
  ogg: 'audio/ogg',
  opus: 'audio/opus',
  webm: 'audio/webm',
  flac: 'audio/flac',
  aac: 'audio/aac',
});

/**
 * @param {string} file
 * @returns {string | undefined}
 */
export function contentTypeFor(file) {
  const extension = extname(file).slice(1).toLowerCase();
  return Object.hasOwn(CONTENT_TYPES, extension)
    ? CONTENT_TYPES[/** @type {keyof typeof CONTENT_TYPES} */ (extension)]
    : undefined;
}
