import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { handlerBundle } from '../../lib/bundling.ts';
import { diarizeFile } from '../../src/adapters/speech/diarization/diarize-file.ts';
import type { SpeakerTurn } from '../../src/adapters/speech/diarization/types.ts';
import { decodeToPcm } from '../../src/adapters/speech/ffmpeg.ts';
import { StreamThreadPool } from '../../src/adapters/speech/threads/stream-thread-pool.ts';
import { apiRoutes, eventWorkers, publicRoutes, queueWorkers } from '../../src/routes.ts';
import { ensureConversations } from '../fixtures/conversations/generate.ts';
import { sharedCloudAssembly } from '../support/cloud-assembly.ts';

const run = promisify(execFile);

interface TemplateResource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/**
 * The real thing, as CI runs it: `cdk synth` through the CLI, offline, with local esbuild bundling
 * (no Docker), telemetry, notices and the version check off (shared with the deployed-artifact tests).
 */
describe('cdk synth (CLI, with bundling)', () => {
  let outDir: string;
  let template: { Resources: Record<string, TemplateResource> };
  let output = '';

  beforeAll(async () => {
    ({ outDir, output } = await sharedCloudAssembly());
    template = JSON.parse(readFileSync(join(outDir, 'notes-dev.template.json'), 'utf8'));
  }, 300_000);

  const ourFunctions = () =>
    Object.values(template.Resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        String(r.Properties.FunctionName ?? '').startsWith('notes-dev-'),
    );

  it('writes the template of stack notes-dev', () => {
    expect(Object.keys(template.Resources).length).toBeGreaterThan(50);
    expect(output).not.toMatch(/AwsSolutions-/);
  });

  it('bundles one ESM asset with a source map per handler', () => {
    const functions = ourFunctions();
    expect(functions).toHaveLength(
      Object.keys(apiRoutes).length +
        Object.keys(publicRoutes).length +
        Object.keys(queueWorkers).length +
        Object.keys(eventWorkers).length,
    );
    for (const fn of functions) {
      const assetDir = join(outDir, String(fn.Metadata?.['aws:asset:path']));
      expect(fn.Properties.Handler).toBe('index.handler');
      const code = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      expect(code.startsWith(handlerBundle.banner)).toBe(true);
      expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
    }
  });

  it('produces bundles that load in Node as ES modules and export a handler', async () => {
    const fn = ourFunctions().find((f) => f.Properties.FunctionName === 'notes-dev-getNote');
    const bundle = join(outDir, String(fn?.Metadata?.['aws:asset:path']), 'index.mjs');
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)}); console.log(typeof m.handler);`,
    ]);
    expect(stdout.trim()).toBe('function');
  });

  it('bundles the diarizer thread beside the transcription worker only, and that thread diarizes', async () => {
    const withThread = ourFunctions().filter((fn) =>
      existsSync(join(outDir, String(fn.Metadata?.['aws:asset:path']), 'diarizer-thread.mjs')),
    );
    expect(withThread.map((fn) => fn.Properties.FunctionName)).toEqual(['notes-dev-transcriptionWorker']);

    const asset = join(outDir, String(withThread[0]?.Metadata?.['aws:asset:path']));
    const threads = new StreamThreadPool(pathToFileURL(join(asset, 'diarizer-thread.mjs')), { size: 1 });
    const audio = (await ensureConversations()).find((f) => f.name === 'two-speakers')?.audio as string;
    const decoding = decodeToPcm(audio);
    const turns = await threads.run<SpeakerTurn[]>({}, decoding.pcm);
    await threads.close();
    expect(turns).toEqual(await diarizeFile(audio));
  });

  it('reports no cdk-nag finding in the validation report', () => {
    const report = JSON.parse(readFileSync(join(outDir, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ summary?: { pluginName?: string }; conditions?: unknown[] }>;
    };
    expect(JSON.stringify(report.pluginReports)).not.toMatch(/AwsSolutions-/);
  });
});
