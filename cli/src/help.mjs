// @ts-check
import { CONTENT_TYPES } from './content-types.mjs';
import { EXIT_CODE_HELP } from './exit-codes.mjs';
import { VERSION } from './version.mjs';

/**
 * @param {import('./types.mjs').CommandSpec} spec
 * @returns {string}
 */
export function commandHelp(spec) {
  const usage = ['notes', synopsis(spec), Object.keys(spec.options).length ? '[options]' : '']
    .filter(Boolean)
    .join(' ');
  /** @type {[string, string][]} */
  const rows = Object.entries(spec.options).map(([name, option]) => [
    `${option.short ? `-${option.short}, ` : ''}--${name}${option.type === 'string' ? ` <${option.value ?? 'value'}>` : ''}`,
    option.description + (option.multiple ? ' (repeatable)' : ''),
  ]);
  rows.push(['-h, --help', 'Show this help']);
  const lines = [`Usage: ${usage}`, '', spec.summary + (spec.operation ? ` (${spec.operation})` : '')];
  if (spec.details) lines.push('', spec.details);
  lines.push('', 'Options:', ...table(rows));
  if (spec.examples.length) lines.push('', 'Examples:', ...spec.examples.map((example) => `  ${example}`));
  return `${lines.join('\n')}\n`;
}

/**
 * @param {import('./types.mjs').GroupSpec} group
 * @returns {string}
 */
export function groupHelp(group) {
  const lines = [
    `Usage: notes ${group.name} <command> [options]`,
    '',
    group.summary,
    '',
    'Commands:',
    ...table(group.commands.map((command) => [synopsis(command), command.summary])),
    '',
    `Run 'notes ${group.name} <command> --help' for a command's options.`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * @param {import('./types.mjs').GroupSpec[]} groups
 * @param {import('./types.mjs').CommandSpec[]} topLevel
 * @returns {string}
 */
export function mainHelp(groups, topLevel) {
  const all = [...topLevel, ...groups.flatMap((group) => group.commands)];
  const lines = [
    `notes ${VERSION}: command-line client of the notes service (audio -> transcript -> Insights, artifacts, answers)`,
    '',
    'Usage: notes <command> [arguments] [options]',
    '       notes <group> <command> [arguments] [options]',
    '',
    'Commands:',
    ...table(all.map((command) => [synopsis(command), command.summary])),
    '',
    'Options:',
    ...table([
      ['-h, --help', "Show help (also 'notes <group> --help', 'notes <command> --help')"],
      ['-V, --version', 'Print the version'],
    ]),
    '',
    'Environment:',
    ...table([
      ['NOTES_API_KEY', 'API key (svc_sk_...), required by every command that calls the API; never printed'],
      ['NOTES_BASE_URL', 'Service URL (default http://127.0.0.1:8787)'],
      ['NOTES_DEBUG', 'Set to 1 to print stack traces of unexpected errors'],
    ]),
    '',
    'Output: one JSON document on stdout (the API response body, pretty-printed; transcript exports',
    'as text); diagnostics and progress on stderr. A 202 (job accepted or running) prints the job',
    'status and exits 0: it is not a result; --wait polls until the result (at least 2 s apart,',
    'backing off on 429/5xx/network errors) or the --timeout deadline.',
    '',
    `Recording types (audio or video) by extension: ${Object.keys(CONTENT_TYPES).join(', ')} (or --content-type).`,
    '',
    'Exit codes:',
    ...table(EXIT_CODE_HELP.map(([code, meaning]) => [String(code), String(meaning)])),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * @param {import('./types.mjs').CommandSpec} spec
 * @returns {string} e.g. `notes delete <id> --confirm <id>`
 */
function synopsis(spec) {
  return [spec.name, ...spec.args, spec.required ?? ''].filter(Boolean).join(' ');
}

/**
 * Two aligned columns.
 * @param {[string, string][]} rows
 * @returns {string[]}
 */
function table(rows) {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
