import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { npmPackagesInstalled } from '../../scripts/ensure-deps.mjs';

let checkout: string;
const lockfile = () => join(checkout, 'package-lock.json');
const hiddenLockfile = () => join(checkout, 'node_modules', '.package-lock.json');
const stamp = () => join(checkout, 'node_modules', '.installed-from-lockfile');
const at = (path: string, seconds: number) => utimes(path, seconds, seconds);

beforeEach(async () => {
  checkout = await mkdtemp(join(tmpdir(), 'notes-ensure-deps-'));
  await mkdir(join(checkout, 'node_modules'));
  await writeFile(lockfile(), '{"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1.0.0"}}}');
  await writeFile(hiddenLockfile(), '{}');
});

afterEach(async () => {
  await rm(checkout, { recursive: true, force: true });
});

describe('whether npm packages are installed (scripts/ensure-deps.mjs)', () => {
  it('counts an install from the same lockfile content as installed, however new the lockfile file is', async () => {
    await at(hiddenLockfile(), 1_000);
    await at(lockfile(), 1_000);
    expect(npmPackagesInstalled(checkout)).toBe(true);
    // A checkout or a worktree renews the lockfile's mtime without changing it.
    await at(lockfile(), 2_000);
    expect(npmPackagesInstalled(checkout)).toBe(true);
  });

  it('asks for an install when the lockfile changed after the install', async () => {
    await at(hiddenLockfile(), 1_000);
    await at(lockfile(), 1_000);
    expect(npmPackagesInstalled(checkout)).toBe(true);
    await writeFile(lockfile(), '{"lockfileVersion":3,"packages":{"node_modules/b":{"version":"2.0.0"}}}');
    await at(lockfile(), 2_000);
    expect(npmPackagesInstalled(checkout)).toBe(false);
  });

  it('asks for an install when node_modules has no npm lockfile of its own', async () => {
    await rm(hiddenLockfile());
    expect(npmPackagesInstalled(checkout)).toBe(false);
  });

  it('records the stamp of an install found current by its time, and decides by time where it cannot write one', async () => {
    await at(lockfile(), 1_000);
    await at(hiddenLockfile(), 2_000);
    expect(npmPackagesInstalled(checkout)).toBe(true);
    expect(await readFile(stamp(), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    // A stamp that cannot be written (a directory in its place fails even for root, as a read-only
    // node_modules fails for the container's user): the install still counts, nothing throws.
    await rm(stamp());
    await mkdir(stamp());
    expect(npmPackagesInstalled(checkout)).toBe(true);
    await at(lockfile(), 3_000);
    expect(npmPackagesInstalled(checkout)).toBe(false);
  });
});
