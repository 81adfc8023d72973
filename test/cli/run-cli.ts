import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ensureLambdaNode } from '../support/node22.ts';

export const CLI_DIR = resolve(import.meta.dirname, '..', '..', 'cli');
export const CLI_BIN = resolve(CLI_DIR, 'bin', 'notes.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The Node that runs the CLI: this process's (Node 20 here and in CI), or with
 * NOTES_TEST_CLI_NODE=22 (the vitest project `cli-on-node-22`) Node 22 from the npm registry.
 */
export async function cliNode(): Promise<string> {
  return process.env.NOTES_TEST_CLI_NODE === '22' ? ensureLambdaNode() : process.execPath;
}

/**
 * Runs the real CLI as a child process (`node cli/bin/notes.mjs ...`, no shell). The environment is
 * this process's without any NOTES_* variable, plus `env` (a value of undefined leaves it unset).
 */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  { timeoutMs = 120_000 }: { timeoutMs?: number } = {},
): Promise<CliResult> {
  return runNode(await cliNode(), [CLI_BIN, ...args], env, { timeoutMs });
}

/**
 * Runs `node` with `args` (no shell), with this process's environment less any NOTES_* variable, plus
 * `env`; resolves with the exit code and everything written to stdout and stderr.
 */
export function runNode(
  node: string,
  args: string[],
  env: Record<string, string | undefined>,
  { timeoutMs, cwd }: { timeoutMs: number; cwd?: string },
): Promise<CliResult> {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('NOTES_')) childEnv[name] = value;
  }
  for (const [name, value] of Object.entries(env)) if (value !== undefined) childEnv[name] = value;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, args, {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      ...(cwd ? { cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** The JSON document a command printed on stdout. */
export function stdoutJson<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** For assertion messages. */
export function describeRun(result: CliResult): string {
  return `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
}
