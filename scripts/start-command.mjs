/**
 * The Node arguments `npm start` runs (package.json's `start` script is `exec node [flags]
 * scripts/start.mjs`), for the tests and benchmarks that launch the service as users do without
 * paying for npm: one place for the flags.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @param {string} root the checkout
 * @returns {string[]} the flags, then the launcher's absolute path
 */
export function npmStartNodeArgs(root) {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const words = scripts.start.trim().split(/\s+/);
  const node = words.indexOf('node');
  const launcher = words.indexOf('scripts/start.mjs');
  if (node < 0 || launcher < node) throw new Error(`unexpected start script: ${scripts.start}`);
  return [...words.slice(node + 1, launcher), join(root, 'scripts', 'start.mjs')];
}
