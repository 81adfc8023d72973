import { join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { TextEngine } from '../src/config.ts';
import type { Needs } from '../src/routes.ts';
import { bundleHandler } from './bundling.ts';
import { repositoryRoot } from './paths.ts';

/**
 * The code of the function whose handler file is `entry` (relative to the repository root): the asset
 * is the folder `bundleHandler` writes, built once by esbuild on this machine (no Docker) when the
 * stack is synthesised. Hashed by that output, as NodejsFunction does; the Docker image is never
 * used because local bundling either succeeds or throws.
 */
export function handlerCode(
  entry: string,
  needs: Needs,
  textEngine: TextEngine,
  threads: readonly string[] = [],
): Code {
  return Code.fromAsset(repositoryRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('notes-bundles-locally-only'),
      local: new LocalHandlerBundling(entry, needs, textEngine, threads),
    },
  });
}

/**
 * A class with its inputs as fields, not a closure: CDK reuses a staged asset for bundling options
 * that serialise alike, so each function's options must show its entry, needs and text engine.
 */
class LocalHandlerBundling implements ILocalBundling {
  constructor(
    readonly entry: string,
    readonly needs: Needs,
    readonly textEngine: TextEngine,
    readonly threads: readonly string[],
  ) {}

  tryBundle(outputDir: string): boolean {
    bundleHandler(join(repositoryRoot, this.entry), outputDir, {
      needs: this.needs,
      textEngine: this.textEngine,
      threads: this.threads,
    });
    return true;
  }
}
