// @ts-check
/**
 * Where output goes: one JSON document (or export text) on stdout; diagnostics and progress on
 * stderr. Everything written to stderr passes through `redact`, so the API key never appears there.
 */

/** @type {string[]} */
const secrets = [];

/**
 * Registers a value that must never be printed (the API key).
 * @param {string | undefined} secret
 */
export function addSecret(secret) {
  if (secret && secret.length >= 4) secrets.push(secret);
}

/**
 * @param {string} text
 * @returns {string}
 */
export function redact(text) {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * Prints a response body as pretty JSON on stdout.
 * @param {unknown} document
 */
export function printJson(document) {
  process.stdout.write(`${redact(JSON.stringify(document, null, 2))}\n`);
}

/**
 * Prints a document as one line of JSON Lines on stdout (a command with one result per input).
 * @param {unknown} document
 */
export function printJsonLine(document) {
  process.stdout.write(`${redact(JSON.stringify(document))}\n`);
}

/**
 * Prints text (an export such as SRT) on stdout exactly as received.
 * @param {string} text
 */
export function printText(text) {
  process.stdout.write(redact(text));
}

/**
 * A diagnostic line on stderr.
 * @param {string} line
 */
export function info(line) {
  process.stderr.write(`${redact(line)}\n`);
}

/**
 * Raw text on stderr (progress redraws).
 * @param {string} text
 */
export function stderrRaw(text) {
  process.stderr.write(redact(text));
}

/** @returns {boolean} whether stderr is an interactive terminal (progress redraws in place) */
export function stderrIsTty() {
  return Boolean(process.stderr.isTTY);
}
