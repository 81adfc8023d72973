// @ts-check
import { readFileSync } from 'node:fs';

/** The version in cli/package.json. */
export const VERSION = /** @type {{ version: string }} */ (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
).version;
