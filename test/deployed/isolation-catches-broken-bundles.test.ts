/**
 * The deployed-artifact suite must fail for the faults it exists to find: a bundle that needs a
 * package it did not bundle, one that reads a file outside its asset, a result that differs from the
 * source's. Shown here with small hand-written assets run the way the real bundles are.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../lib/paths.ts';
import { ensureLambdaNode } from '../support/node22.ts';
import { comparable } from './support/compare.ts';
import { IsolatedBundle, resultOf } from './support/isolated-bundle.ts';

let workDir: string;
let nodeBinary: string;
const made: IsolatedBundle[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'notes-broken-bundles-'));
  nodeBinary = await ensureLambdaNode();
}, 300_000);

afterAll(async () => {
  await Promise.all(made.map((bundle) => bundle.dispose()));
  await rm(workDir, { recursive: true, force: true });
});

/** An asset folder holding `index.mjs` with `code` (and `data.txt`), isolated like a real bundle. */
async function assetWith(name: string, code: string): Promise<IsolatedBundle> {
  const assetDir = join(workDir, name);
  await mkdir(assetDir);
  await writeFile(join(assetDir, 'index.mjs'), code);
  await writeFile(join(assetDir, 'data.txt'), 'inside the asset');
  const bundle = await IsolatedBundle.copy({ name, assetDir, timeoutSeconds: 10 }, nodeBinary);
  made.push(bundle);
  return bundle;
}

const readsFile = (path: string) =>
  `import { readFileSync } from 'node:fs';
export const handler = async () => readFileSync(${JSON.stringify(path)}, 'utf8');`;

describe('running a bundle in isolation', () => {
  it('runs on the pinned Node 22 and reads files of its own asset', async () => {
    const bundle = await assetWith('reads-own-file', readsFile('./data.txt'));
    const versionBundle = await assetWith(
      'node-version',
      'export const handler = async () => process.version;',
    );
    expect(resultOf(await bundle.invoke({}, {}), 'reads-own-file')).toBe('inside the asset');
    expect(resultOf(await versionBundle.invoke({}, {}), 'node-version')).toMatch(/^v22\./);
  });

  it('fails a bundle that imports a package it did not bundle', async () => {
    const bundle = await assetWith(
      'needs-node-modules',
      "import * as z from 'zod';\nexport const handler = async () => typeof z;",
    );
    const outcome = await bundle.load({});
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ERR_MODULE_NOT_FOUND' } });
    expect(() => resultOf(outcome, 'needs-node-modules')).toThrow(/zod/);
  });

  it('fails a bundle that reads a file outside its asset', async () => {
    const bundle = await assetWith('reads-repository', readsFile(join(repositoryRoot, 'package.json')));
    const outcome = await bundle.invoke({}, {});
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ERR_ACCESS_DENIED' } });
  });

  it('fails a bundle that has no handler export', async () => {
    const bundle = await assetWith('no-handler', 'export const main = async () => 1;');
    expect(await bundle.load({})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/handler/) },
    });
  });
});

describe('comparing a bundle with its source', () => {
  const response = (noteId: string, status: number, title: string) => ({
    statusCode: status,
    body: JSON.stringify({
      note_id: noteId,
      title,
      created_at: '2026-11-24T01:00:00.000Z',
      upload: { url: `http://s3/notes/${noteId}/audio?X-Amz-Date=20261124T010000Z&X-Amz-Signature=abc` },
    }),
  });

  it('sees the same result across different notes, times and signatures', () => {
    const a = response('note-a', 202, 'Deployed');
    const b = { ...response('note-b', 202, 'Deployed') };
    b.body = b.body.replace('01:00:00.000Z', '01:00:07.512Z').replace('abc', 'def');
    expect(comparable(a, 'note-a')).toEqual(comparable(b, 'note-b'));
  });

  it('tells apart a different status or body', () => {
    expect(comparable(response('note-a', 202, 'Deployed'), 'note-a')).not.toEqual(
      comparable(response('note-b', 500, 'Deployed'), 'note-b'),
    );
    expect(comparable(response('note-a', 202, 'Deployed'), 'note-a')).not.toEqual(
      comparable(response('note-b', 202, 'Other'), 'note-b'),
    );
  });
});
