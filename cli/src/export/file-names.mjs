// @ts-check
/**
 * File names for exported notes: the title made safe on Linux, macOS and Windows and in Obsidian
 * links, then made unique in the export folder.
 */

/**
 * Characters no file name may hold on Windows (`\ / : * ? " < > |`), those that break Obsidian
 * links (`# ^ [ ]`), and control characters.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const UNSAFE_CHARACTERS = /[\\/:*?"<>|#^[\]\u0000-\u001f\u007f-\u009f]/g;

/** Names Windows reserves for devices, with any extension (`con.md` cannot be created either). */
const WINDOWS_DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * Longest name in UTF-8 bytes before the suffix and extension: file systems allow 255 bytes, and a
 * ` (3f2b8c1e)` suffix and `.conflict.md` must still fit.
 */
const MAX_NAME_BYTES = 180;

export const MARKDOWN_EXTENSION = '.md';
export const CONFLICT_EXTENSION = '.conflict.md';

/**
 * The title as a file name without extension: unsafe characters become spaces, runs of spaces one,
 * no leading dot (hidden files) or trailing dot or space (Windows drops them), not a Windows device
 * name, at most MAX_NAME_BYTES, `Untitled` when nothing is left.
 * @param {string} title
 * @returns {string}
 */
export function safeBaseName(title) {
  let name = title.normalize('NFC').replace(UNSAFE_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  name = name.replace(/^[.\s]+/, '');
  name = truncateUtf8(name, MAX_NAME_BYTES).replace(/[.\s]+$/, '');
  if (!name) return 'Untitled';
  const [stem = name, ...rest] = name.split('.');
  // Windows reserves a device name before the first dot whatever follows: the mark goes on the stem.
  if (WINDOWS_DEVICE_NAMES.test(stem.trim())) name = [`${stem}_`, ...rest].join('.');
  return name;
}

/**
 * At most `maxBytes` of UTF-8, never cutting a character in two.
 * @param {string} text
 * @param {number} maxBytes
 * @returns {string}
 */
function truncateUtf8(text, maxBytes) {
  let bytes = 0;
  let out = '';
  for (const character of text) {
    bytes += Buffer.byteLength(character, 'utf8');
    if (bytes > maxBytes) break;
    out += character;
  }
  return out;
}

/**
 * How names are compared for uniqueness: macOS and Windows file systems ignore case and (macOS)
 * Unicode normalization, so `Sync.md` and `sync.md` are one file there.
 * @param {string} fileName
 * @returns {string}
 */
export function nameKey(fileName) {
  return fileName.normalize('NFC').toLowerCase();
}

/**
 * The file name of a note that has none yet: its safe title, or with the short note ID when that
 * name is taken (by another note, its conflict copy, or a file the export did not write), so that
 * two notes with one title get two files and nothing in the folder is overwritten.
 * @param {string} title
 * @param {string} noteId
 * @param {(fileName: string) => boolean} isTaken
 * @returns {string} e.g. `Weekly sync.md` or `Weekly sync (3f2b8c1e).md`
 */
export function newFileName(title, noteId, isTaken) {
  const base = safeBaseName(title);
  const candidates = [base, `${base} (${noteId.slice(0, 8)})`, `${base} (${noteId})`];
  for (const candidate of candidates) {
    const taken = isTaken(candidate + MARKDOWN_EXTENSION) || isTaken(candidate + CONFLICT_EXTENSION);
    if (!taken) return candidate + MARKDOWN_EXTENSION;
  }
  // A full note ID is unique in the account; only a file the person named so could hold it.
  for (let n = 2; ; n++) {
    const candidate = `${base} (${noteId}) (${n})`;
    if (!isTaken(candidate + MARKDOWN_EXTENSION) && !isTaken(candidate + CONFLICT_EXTENSION)) {
      return candidate + MARKDOWN_EXTENSION;
    }
  }
}

/**
 * The file beside an exported file that receives the service's newer version when the person
 * edited the exported one: `Weekly sync.md` -> `Weekly sync.conflict.md`.
 * @param {string} fileName
 * @returns {string}
 */
export function conflictFileName(fileName) {
  const base = fileName.endsWith(MARKDOWN_EXTENSION)
    ? fileName.slice(0, -MARKDOWN_EXTENSION.length)
    : fileName;
  return base + CONFLICT_EXTENSION;
}
