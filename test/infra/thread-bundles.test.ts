/**
 * Worker threads in a Lambda bundle: esbuild does not follow `new Worker(new URL(...))`, so each thread
 * entry is bundled beside the handler (lib/bundling.ts) and found there at run time. Built here with
 * the handlers' esbuild settings and run in a separate Node process, as Lambda would load it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, handlerThreads, threadBundleName } from '../../lib/bundling.ts';
import { repositoryRoot } from '../../lib/paths.ts';
import { diarizeFile } from '../../src/adapters/speech/diarization/diarize-file.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';

const run = promisify(execFile);
const DIARIZER_THREAD = 'src/adapters/speech/diarization/diarizer-thread.ts';
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'notes-thread-bundle-'));
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe('worker threads in Lambda bundles', () => {
  it('bundles the diarizer thread with the transcription worker, the handler that diarizes', () => {
    expect(handlerThreads.transcriptionWorker).toEqual([DIARIZER_THREAD]);
    expect(threadBundleName(DIARIZER_THREAD)).toBe('diarizer-thread.mjs');
  });

  it('a bundled diarizer finds its thread beside it and gives exactly the turns of the sources', async () => {
    const entry = (path: string) => join(repositoryRoot, path);
    await build(
      esbuildOptions(entry('src/adapters/speech/diarization/diarize-file.ts'), join(outDir, 'index.mjs')),
    );
    await build(esbuildOptions(entry(DIARIZER_THREAD), join(outDir, threadBundleName(DIARIZER_THREAD))));
    expect((await readdir(outDir)).sort()).toEqual([
      'diarizer-thread.mjs',
      'diarizer-thread.mjs.map',
      'index.mjs',
      'index.mjs.map',
    ]);

    const conversation = (await ensureConversations()).find((fixture) => fixture.name === 'two-speakers');
    const audio = conversation?.audio as string;
    const script = `const { diarizeFile } = await import(${JSON.stringify(pathToFileURL(join(outDir, 'index.mjs')).href)});
process.stdout.write(JSON.stringify(await diarizeFile(${JSON.stringify(audio)})));`;
    // Its own process, outside the repository's loaders: only the bundle and Node.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: outDir });
    const bundled = JSON.parse(stdout);
    expect(bundled.length).toBeGreaterThan(0);
    expect(bundled).toEqual(await diarizeFile(audio));
  }, 120_000);
});
