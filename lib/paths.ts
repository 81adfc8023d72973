import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: handler entries (src/routes.ts) and openapi.yaml are relative to it. */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
