import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../lib/paths.ts';
import { waitUntil } from './wait.ts';

/** The stack `cdk synth` writes with cdk.json's defaults. */
export const STACK_NAME = 'notes-dev';

export interface DeployedFunction {
  /** The handler's name in src/routes.ts (`getNote`), from FunctionName `notes-dev-getNote`. */
  name: string;
  /** The folder the function's code is uploaded from (its asset in the cloud assembly). */
  assetDir: string;
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** As the template sets it: strings, or CloudFormation references (`{ Ref: ... }`). */
  environment: Record<string, unknown>;
}

interface TemplateFunction {
  Type: string;
  Properties: {
    FunctionName?: unknown;
    Handler?: string;
    Runtime?: string;
    Timeout?: number;
    MemorySize?: number;
    Environment?: { Variables?: Record<string, unknown> };
  };
  Metadata?: Record<string, unknown>;
}

/**
 * `cdk synth` through the CLI, as CI and a deploy run it: offline, bundling with the local esbuild
 * (no Docker), telemetry, notices and the version check off. Writes the cloud assembly to `outDir`.
 */
export async function synthesizeWithBundling(outDir: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    join(repositoryRoot, 'node_modules', '.bin', 'cdk'),
    ['synth', '--no-notices', '-q', '-o', outDir],
    {
      cwd: repositoryRoot,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return stdout + stderr;
}

export interface CloudAssembly {
  outDir: string;
  /** What `cdk synth` printed (cdk-nag findings would be here). */
  output: string;
}

/**
 * node_modules may be shared by several checkouts (a worktree's symlink): NOTES_CLOUD_ASSEMBLY_CACHE
 * gives one its own cache, so that its runs neither wait for nor remove another's assembly.
 */
const CACHE =
  process.env.NOTES_CLOUD_ASSEMBLY_CACHE ??
  join(repositoryRoot, 'node_modules', '.cache', 'notes-cloud-assembly');
const OUTPUT_FILE = 'synth-output.txt';

/**
 * The cloud assembly of the code as it is now, synthesised once for all the test files that read it
 * (they run in parallel processes): kept under node_modules/.cache by a hash of every file outside
 * test/ and bench/, so an edit to the stack or a handler synthesises again. The first process to
 * take the lock synthesises; the others wait for its result. Readers must not change it.
 */
export async function sharedCloudAssembly(): Promise<CloudAssembly> {
  const outDir = join(CACHE, await sourceHash());
  const lock = `${outDir}.lock`;
  await mkdir(CACHE, { recursive: true });
  if (!existsSync(outDir)) {
    const locked = await mkdir(lock).then(
      () => true,
      () => false,
    );
    if (locked) {
      await writeFile(join(lock, 'pid'), String(process.pid));
      try {
        const staging = `${outDir}.${process.pid}`;
        const output = await synthesizeWithBundling(staging);
        await writeFile(join(staging, OUTPUT_FILE), output);
        await removeOtherAssemblies(outDir);
        await rename(staging, outDir);
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    } else {
      // Another test file is synthesising; a lock left by a killed run is taken over.
      await waitUntil(() => existsSync(outDir) || !lockHolderAlive(lock), 'the shared cdk synth', 300_000);
      if (!existsSync(outDir)) {
        await rm(lock, { recursive: true, force: true });
        return sharedCloudAssembly();
      }
    }
  }
  return { outDir, output: await readFile(join(outDir, OUTPUT_FILE), 'utf8') };
}

function lockHolderAlive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(join(lock, 'pid'), 'utf8')), 0);
    return true;
  } catch (error) {
    // No pid file yet: the holder has only just made the lock.
    return (
      (error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EPERM'
    );
  }
}

/** sha256 over the paths and contents of the files `git` knows outside test/ and bench/ (tracked or not ignored). */
async function sourceHash(): Promise<string> {
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: repositoryRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  const hash = createHash('sha256');
  const files = stdout
    .split('\0')
    .filter((path) => path && !/^(test|bench)\//.test(path))
    .sort();
  for (const path of files) {
    const file = join(repositoryRoot, path);
    hash.update(`${path}\0`);
    if (existsSync(file)) hash.update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Older assemblies (other source states) go: each holds every function's bundle. */
async function removeOtherAssemblies(keep: string): Promise<void> {
  for (const entry of await readdir(CACHE)) {
    const path = join(CACHE, entry);
    if (path !== keep && !entry.endsWith('.lock') && !entry.includes('.')) {
      await rm(path, { recursive: true, force: true });
    }
  }
}

/** Our functions (named `notes-dev-*`) in the synthesised template, by handler name. */
export function deployedFunctions(outDir: string): Map<string, DeployedFunction> {
  const template = JSON.parse(readFileSync(join(outDir, `${STACK_NAME}.template.json`), 'utf8')) as {
    Resources: Record<string, TemplateFunction>;
  };
  const functions = new Map<string, DeployedFunction>();
  for (const resource of Object.values(template.Resources)) {
    const name = resource.Properties.FunctionName;
    if (resource.Type !== 'AWS::Lambda::Function' || typeof name !== 'string') continue;
    if (!name.startsWith(`${STACK_NAME}-`)) continue;
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') throw new Error(`${name} has no asset path in its metadata`);
    functions.set(name.slice(STACK_NAME.length + 1), {
      name: name.slice(STACK_NAME.length + 1),
      assetDir: join(outDir, assetPath),
      handler: String(resource.Properties.Handler),
      runtime: String(resource.Properties.Runtime),
      timeoutSeconds: Number(resource.Properties.Timeout ?? 3),
      memoryMb: Number(resource.Properties.MemorySize ?? 128),
      environment: resource.Properties.Environment?.Variables ?? {},
    });
  }
  return functions;
}
