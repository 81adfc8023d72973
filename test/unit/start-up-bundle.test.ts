import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entryFile, freshBundle } from '../../scripts/local-server-bundle.mjs';

const run = promisify(execFile);

/**
 * The bundle `npm start` runs (scripts/local-server-bundle.mjs), made with the real esbuild from a
 * small project of TypeScript files in a temporary directory and run by a real Node process.
 */
let root: string;
let cacheDir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'notes-start-bundle-'));
  cacheDir = join(root, 'cache');
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  await source('src/main.ts', "import { greeting } from './greeting.ts';\nconsole.log(greeting());\n");
  await source('src/greeting.ts', "export function greeting(): string {\n  return 'hello';\n}\n");
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** Writes a source as if saved a minute ago, or `secondsAgo`: no file is newer than a build that follows. */
async function source(path: string, text: string, secondsAgo = 60): Promise<void> {
  await writeFile(join(root, path), text);
  const when = new Date(Date.now() - secondsAgo * 1000);
  await utimes(join(root, path), when, when);
}

async function bundle() {
  return freshBundle({ root, entryPoints: { main: 'src/main.ts' }, cacheDir });
}

async function runMain(dir: string, options: string[] = []): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [...options, entryFile({ dir, built: false }, 'main')]).catch(
    (error: { stdout: string; stderr: string }) => error,
  );
}

describe('the start-up bundle of npm start', () => {
  it('is reused while no source changed, and made again with the change once one did', async () => {
    const first = await bundle();
    expect(first.built).toBe(true);
    expect((await runMain(first.dir)).stdout).toBe('hello\n');

    const again = await bundle();
    expect(again).toEqual({ dir: first.dir, built: false });

    await source('src/greeting.ts', "export function greeting(): string {\n  return 'edited';\n}\n", 30);
    const edited = await bundle();
    expect(edited.built).toBe(true);
    expect(edited.dir).not.toBe(first.dir);
    expect((await runMain(edited.dir)).stdout).toBe('edited\n');
  });

  it('is not reused once a source it holds is gone: the start fails as the sources would', async () => {
    await bundle();
    await rm(join(root, 'src', 'greeting.ts'));
    await expect(bundle()).rejects.toThrow(/greeting\.ts/);
  });

  it('removes the builds no running process uses', async () => {
    const first = await bundle();
    // Marked by a process that has ended (this test's pid is alive, so mark it as a finished one's).
    await rm(join(first.dir, 'in-use'), { recursive: true });
    await source('src/greeting.ts', "export function greeting(): string {\n  return 'next';\n}\n", 30);
    const next = await bundle();
    expect((await readdir(cacheDir)).filter((name) => name.startsWith('build-'))).toEqual([
      next.dir.split('/').at(-1),
    ]);
  });

  it('keeps a build that a running process still uses', async () => {
    const first = await bundle();
    await source('src/greeting.ts', "export function greeting(): string {\n  return 'next';\n}\n", 30);
    const next = await bundle();
    // This process marked the first build when it made it, and is still running.
    expect((await readdir(cacheDir)).filter((name) => name.startsWith('build-')).sort()).toEqual(
      [first.dir.split('/').at(-1), next.dir.split('/').at(-1)].sort(),
    );
  });

  it('points stack traces at the TypeScript sources', async () => {
    await source(
      'src/greeting.ts',
      "export function greeting(): string {\n  throw new Error('broken greeting');\n}\n",
    );
    const { dir } = await bundle();
    const { stderr } = await runMain(dir, ['--enable-source-maps']);
    expect(stderr).toContain('broken greeting');
    expect(stderr).toContain(`${join(root, 'src', 'greeting.ts')}:2`);
  });

  it("keeps import.meta.dirname the source's own directory", async () => {
    await source('src/main.ts', 'console.log(import.meta.dirname);\n');
    const { dir } = await bundle();
    expect((await runMain(dir)).stdout).toBe(`${join(root, 'src')}\n`);
  });
});
