import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { type RunningService, startService } from '../support/local-runtime.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
};

const publicDir = join(REPO_ROOT, 'docs', 'public');
/** URL path -> file on disk: the contract at the root, and every file of docs/public/. */
const published: Array<[string, string]> = [
  ['/openapi.yaml', join(REPO_ROOT, 'openapi.yaml')],
  ...readdirSync(publicDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry): [string, string] => {
      const file = join(entry.parentPath, entry.name);
      return [`/${relative(publicDir, file).split(sep).join('/')}`, file];
    })
    .sort(([a], [b]) => a.localeCompare(b)),
];

let service: RunningService;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.stop());

describe('the local runtime', () => {
  it('publishes the documentation entry points', () => {
    expect(published.map(([path]) => path)).toEqual(
      expect.arrayContaining(['/openapi.yaml', '/llms.txt', '/llms-full.txt', '/skill.md', '/skill.json']),
    );
  });

  it.each(published)(
    'serves %s without an API key, with its content type and the bytes of the file',
    async (path, file) => {
      const response = await fetch(`${service.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(CONTENT_TYPES[extname(file)]);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file))).toBe(true);
    },
  );

  it('answers 404 for a file that is not published', async () => {
    const response = await fetch(`${service.baseUrl}/README.md`);
    expect(response.status).toBe(404);
  });
});
