// @ts-check
import { parseCommandArgs, wantsHelp } from './args.mjs';
import { GROUPS, TOP_LEVEL } from './commands/index.mjs';
import { readConfig } from './config.mjs';
import { CliError, UsageError } from './errors.mjs';
import { EXIT } from './exit-codes.mjs';
import { commandHelp, groupHelp, mainHelp } from './help.mjs';
import { createClient } from './http.mjs';
import { info } from './output.mjs';
import { VERSION } from './version.mjs';

/**
 * Runs one `notes` invocation and returns its exit code. Output goes to stdout/stderr.
 * @param {string[]} argv arguments after the program name
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
export async function main(argv, env) {
  try {
    return await dispatch(argv, env);
  } catch (error) {
    return report(error, env);
  }
}

/**
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
async function dispatch(argv, env) {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(mainHelp(GROUPS, TOP_LEVEL));
    return EXIT.USAGE;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    if (first === 'help' && rest.length) return dispatch([...rest, '--help'], env);
    process.stdout.write(mainHelp(GROUPS, TOP_LEVEL));
    return EXIT.OK;
  }
  const command = TOP_LEVEL.find((candidate) => candidate.name === first);
  if (command) return run(command, rest, env);

  const group = GROUPS.find((candidate) => candidate.name === first);
  if (!group) {
    throw new UsageError(`unknown command '${first}'. Run 'notes --help' for the list of commands.`);
  }
  const [sub, ...args] = rest;
  if (sub === undefined) {
    process.stderr.write(groupHelp(group));
    return EXIT.USAGE;
  }
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(groupHelp(group));
    return EXIT.OK;
  }
  const subcommand = group.commands.find((candidate) => candidate.name === `${group.name} ${sub}`);
  if (!subcommand) {
    throw new UsageError(
      `unknown command '${group.name} ${sub}'. Run 'notes ${group.name} --help' for its commands.`,
    );
  }
  return run(subcommand, args, env);
}

/**
 * @param {import('./types.mjs').CommandSpec} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
async function run(command, args, env) {
  if (wantsHelp(args)) {
    process.stdout.write(commandHelp(command));
    return EXIT.OK;
  }
  const { positionals, values } = parseCommandArgs(command, args);
  const code = await command.run({ positionals, values, env, client: () => createClient(readConfig(env)) });
  return code ?? EXIT.OK;
}

/**
 * Prints an error on stderr (the key redacted) and returns its exit code.
 * @param {unknown} error
 * @param {NodeJS.ProcessEnv} env
 * @returns {number}
 */
function report(error, env) {
  if (error instanceof CliError) {
    info(`notes: ${error.message}`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  info(`notes: unexpected error: ${message}`);
  if (env.NOTES_DEBUG && error instanceof Error && error.stack) info(error.stack);
  return EXIT.UNEXPECTED;
}
