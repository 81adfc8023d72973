// @ts-check
import { parseArgs } from 'node:util';
import { UsageError } from './errors.mjs';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `--help`/`-h` appears before any `--`: help wins over every other argument.
 * @param {string[]} argv
 * @returns {boolean}
 */
export function wantsHelp(argv) {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/**
 * Parses a command's arguments with `node:util` parseArgs (strict) and checks the number of
 * positionals against the command's `args`.
 * @param {import('./types.mjs').CommandSpec} spec
 * @param {string[]} argv
 * @returns {{ positionals: string[], values: import('./types.mjs').OptionValues }}
 */
export function parseCommandArgs(spec, argv) {
  /** @type {NonNullable<import('node:util').ParseArgsConfig['options']>} */
  const options = { help: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = { type: option.type, multiple: option.multiple ?? false };
    if (option.short) options[name].short = option.short;
  }
  /** @type {{ positionals: string[], values: import('./types.mjs').OptionValues }} */
  let parsed;
  try {
    // No option is a repeatable boolean, so values are strings, booleans or string lists.
    parsed = /** @type {{ positionals: string[], values: import('./types.mjs').OptionValues }} */ (
      parseArgs({ args: argv, options, allowPositionals: true, strict: true })
    );
  } catch (error) {
    throw new UsageError(parseErrorMessage(error), spec.name);
  }
  const required = spec.args.filter((arg) => arg.startsWith('<')).length;
  const variadic = spec.args.some((arg) => arg.endsWith('...>') || arg.endsWith('...]'));
  const { positionals } = parsed;
  if (positionals.length < required) {
    const missing = spec.args.slice(positionals.length).filter((arg) => arg.startsWith('<'));
    throw new UsageError(`missing argument ${missing.join(' ')}`, spec.name);
  }
  if (!variadic && positionals.length > spec.args.length) {
    throw new UsageError(`unexpected argument '${positionals[spec.args.length]}'`, spec.name);
  }
  return parsed;
}

/**
 * @param {unknown} error
 * @returns {string}
 */
function parseErrorMessage(error) {
  const message = error instanceof Error ? error.message : String(error);
  // parseArgs suggests `--` for positionals that look like options; keep its first sentence only.
  return message.split('. To specify')[0] ?? message;
}

/**
 * @param {import('./types.mjs').OptionValues} values
 * @param {string} name
 * @returns {string | undefined}
 */
export function stringOption(values, name) {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * @param {import('./types.mjs').OptionValues} values
 * @param {string} name
 * @returns {string[]}
 */
export function stringsOption(values, name) {
  const value = values[name];
  return Array.isArray(value) ? value : [];
}

/**
 * @param {import('./types.mjs').OptionValues} values
 * @param {string} name
 * @returns {boolean}
 */
export function flag(values, name) {
  return values[name] === true;
}

/**
 * An integer option within bounds, or undefined when absent.
 * @param {import('./types.mjs').OptionValues} values
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {string} command
 * @returns {number | undefined}
 */
export function integerOption(values, name, min, max, command) {
  const raw = stringOption(values, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not '${raw}'`, command);
  }
  return value;
}

/**
 * `--timeout` in seconds (a positive number), or the default.
 * @param {import('./types.mjs').OptionValues} values
 * @param {number} fallback
 * @param {string} command
 * @returns {number}
 */
export function timeoutOption(values, fallback, command) {
  const raw = stringOption(values, 'timeout');
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!raw.trim() || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`--timeout must be a positive number of seconds, not '${raw}'`, command);
  }
  return value;
}

/**
 * @param {string} value
 * @returns {boolean}
 */
export function isUuid(value) {
  return UUID.test(value);
}

/**
 * Checks that a note ID looks like a UUID (the API rejects anything else with 400).
 * @param {string | undefined} value
 * @param {string} command
 * @returns {string}
 */
export function noteIdArg(value, command) {
  if (value === undefined || !isUuid(value)) {
    throw new UsageError(`note ID must be a UUID, not '${value ?? ''}'`, command);
  }
  return value;
}

/**
 * One of the allowed values.
 * @template {string} T
 * @param {string | undefined} value
 * @param {readonly T[]} allowed
 * @param {string} what
 * @param {string} command
 * @returns {T}
 */
export function oneOf(value, allowed, what, command) {
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) {
    throw new UsageError(`${what} must be one of ${allowed.join(', ')}, not '${value ?? ''}'`, command);
  }
  return found;
}

/**
 * Permanent deletions run only when `--confirm` repeats the exact note ID.
 * @param {string} noteId
 * @param {string | undefined} confirm
 * @param {string} command
 */
export function requireConfirmation(noteId, confirm, command) {
  if (confirm === undefined) {
    throw new UsageError(
      `this permanently deletes data of note ${noteId}. To confirm, repeat the note ID: --confirm ${noteId}\nNothing was deleted.`,
      command,
    );
  }
  if (confirm !== noteId) {
    throw new UsageError(
      `--confirm '${confirm}' does not match the note ID '${noteId}'. Nothing was deleted.`,
      command,
    );
  }
}
