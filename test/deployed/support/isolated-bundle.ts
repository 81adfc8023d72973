import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeployedFunction } from '../../support/cloud-assembly.ts';

const RUNNER = join(import.meta.dirname, 'invoke-bundle.mjs');
/** Mirrors invoke-bundle.mjs (a plain script the test process does not import). */
const RESULT_MARKER = '@@notes-invoke-result@@';

export type Outcome =
  | { ok: true; result: unknown; logs: string }
  | { ok: false; error: { name: string; message: string; code?: string }; logs: string };

/**
 * One function's asset copied alone into a temporary folder (no node_modules, no repository around
 * it) and invoked there by the Lambda runtime's Node, one process per invocation. Node's permission
 * model lets the process read only that folder and write only its own temporary directory, so a
 * bundle that needs any file outside its asset fails here as it would on Lambda.
 */
export class IsolatedBundle {
  private constructor(
    readonly name: string,
    private readonly root: string,
    private readonly nodeBinary: string,
    private readonly timeoutMs: number,
  ) {}

  static async copy(fn: Pick<DeployedFunction, 'name' | 'assetDir' | 'timeoutSeconds'>, nodeBinary: string) {
    const root = await mkdtemp(join(tmpdir(), `notes-deployed-${fn.name}-`));
    await cp(fn.assetDir, join(root, 'asset'), { recursive: true });
    await cp(RUNNER, join(root, 'invoke-bundle.mjs'));
    await mkdir(join(root, 'tmp'));
    return new IsolatedBundle(fn.name, root, nodeBinary, fn.timeoutSeconds * 1000);
  }

  get assetDir(): string {
    return join(this.root, 'asset');
  }

  /** Invokes the handler with `event`, the environment being what Lambda would give the function. */
  invoke(event: unknown, environment: Record<string, string>): Promise<Outcome> {
    return this.run(event, environment, []);
  }

  /** Only imports the bundle, as a cold start does; the result is the handler's `typeof`. */
  load(environment: Record<string, string>): Promise<Outcome> {
    return this.run({}, environment, ['load']);
  }

  private run(event: unknown, environment: Record<string, string>, mode: string[]): Promise<Outcome> {
    const scratch = join(this.root, 'tmp');
    const args = [
      '--permission',
      `--allow-fs-read=${this.root}/`,
      `--allow-fs-write=${scratch}/`,
      join(this.root, 'invoke-bundle.mjs'),
      this.assetDir,
      this.name,
      String(this.timeoutMs),
      ...mode,
    ];
    const env = {
      ...environment,
      // Lambda's own variables; /tmp is the function's only writable place.
      PATH: '/usr/local/bin:/usr/bin:/bin',
      TZ: 'UTC',
      LAMBDA_TASK_ROOT: this.assetDir,
      AWS_LAMBDA_FUNCTION_NAME: this.name,
      TMPDIR: scratch,
      HOME: scratch,
    };
    return new Promise((resolve, reject) => {
      const child = spawn(this.nodeBinary, args, {
        cwd: this.assetDir,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutMs + 10_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const at = stdout.lastIndexOf(RESULT_MARKER);
        if (at < 0) {
          reject(
            new Error(
              `${this.name}: the runtime ended (code ${code}, signal ${signal}) without a result\n${stderr.slice(-4000)}`,
            ),
          );
          return;
        }
        const logs = `${stdout.slice(0, at)}${stderr}`;
        resolve({ ...JSON.parse(stdout.slice(at + RESULT_MARKER.length)), logs } as Outcome);
      });
      child.stdin.end(JSON.stringify(event));
    });
  }

  dispose(): Promise<void> {
    return rm(this.root, { recursive: true, force: true });
  }
}

/** The handler's result, or a failed test naming the error the bundle gave. */
export function resultOf(outcome: Outcome, what: string): unknown {
  if (!outcome.ok) {
    throw new Error(
      `${what}: ${outcome.error.name} ${outcome.error.code ?? ''} ${outcome.error.message}\n${outcome.logs.slice(-3000)}`,
    );
  }
  return outcome.result;
}

/**
 * The function's environment as the template sets it: strings as they are, CloudFormation references
 * (`{ Ref: ... }`, `Fn::GetAtt`) replaced by the local stand-in's value for that variable. A reference
 * the suite has no local value for fails, so a new setting in the stack cannot go untested unnoticed.
 */
export function stackEnvironment(
  fn: DeployedFunction,
  localValues: Record<string, string>,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (typeof value === 'string') environment[name] = value;
    else if (name in localValues) environment[name] = localValues[name] as string;
    else throw new Error(`${fn.name}: no local value for ${name} (${JSON.stringify(value)})`);
  }
  return environment;
}
