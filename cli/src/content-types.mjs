// @ts-check
import { extname } from 'node:path';

/**
 * Recording content type by file extension (the API's AudioContentType values). `.mp4` is taken as video
 * (its sound track is transcribed either way) so the web app shows it as a video; `.webm` stays audio.
 */
export const CONTENT_TYPES = Object.freeze({
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
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
