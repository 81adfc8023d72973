import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../../lib/paths.ts';

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
export async function synthesizeWithBundling(outDir: string): Promise<void> {
  await promisify(execFile)(
    join(repositoryRoot, 'node_modules', '.bin', 'cdk'),
    ['synth', '--no-notices', '-q', '-o', outDir],
    {
      cwd: repositoryRoot,
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
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
