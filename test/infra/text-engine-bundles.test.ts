/**
 * A Lambda bundle is wired for one text engine, the function's NOTES_TEXT_ENGINE in the stack
 * (lib/bundling.ts), and carries the providers' JSON schemas as computed at build time. Built here
 * with the handlers' esbuild settings and run in a separate Node process, as Lambda would load it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, STACK_TEXT_ENGINE, textEngineOf } from '../../lib/bundling.ts';
import { repositoryRoot } from '../../lib/paths.ts';
import { derivedJsonSchemas } from '../../src/adapters/llm/schema.ts';
import type { TextEngine } from '../../src/config.ts';

const run = promisify(execFile);
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'notes-text-engine-bundle-'));
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

/** `source` (relative to the repository root) bundled as a handler wired for `textEngine`. */
async function bundled(source: string, name: string, textEngine: TextEngine): Promise<string> {
  const outfile = join(outDir, name, 'index.mjs');
  await build(esbuildOptions(join(repositoryRoot, source), outfile, { textEngine }));
  return pathToFileURL(outfile).href;
}

/** Runs `script` (an ES module) in its own Node process with `env` added; what it prints, parsed. */
async function runIsolated(script: string, env: Record<string, string>): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: outDir,
    env: {
      PATH: process.env.PATH ?? '',
      NOTES_TABLE_NAME: 'notes',
      NOTES_BUCKET_NAME: 'notes-data',
      NOTES_TRANSCRIPTION_QUEUE_URL: 'http://127.0.0.1:1/transcription',
      NOTES_GENERATION_QUEUE_URL: 'http://127.0.0.1:1/generation',
      AWS_REGION: 'us-east-1',
      ...env,
    },
  });
  return JSON.parse(stdout);
}

/** Wires Ask's answer engine from the environment; prints its name or the error it failed with. */
const askWiring = (url: string) => `const { getAskServices } = await import(${JSON.stringify(url)});
try { process.stdout.write(JSON.stringify({ name: getAskServices().answers.name })); }
catch (error) { process.stdout.write(JSON.stringify({ error: error.message })); }`;

describe('Lambda bundles wired for the text engine', () => {
  it("every function's bundle is wired for the engine its environment sets, the stack's being Bedrock", () => {
    expect(STACK_TEXT_ENGINE).toBe('bedrock');
    expect(textEngineOf({ NOTES_TEXT_ENGINE: 'openai' })).toBe('openai');
    expect(textEngineOf({})).toBe('local');
    expect(() => textEngineOf({ NOTES_TEXT_ENGINE: 'gpt' })).toThrow(/NOTES_TEXT_ENGINE=gpt is none of/);
  });

  it('a bundle built for Bedrock wires Ask for Bedrock, and refuses another engine naming both', async () => {
    const url = await bundled('src/wiring/ask-services.ts', 'ask-bedrock', 'bedrock');
    expect(await runIsolated(askWiring(url), { NOTES_TEXT_ENGINE: 'bedrock' })).toEqual({
      name: 'bedrock:us.anthropic.claude-sonnet-4-6',
    });
    const refused = await runIsolated(askWiring(url), {
      NOTES_TEXT_ENGINE: 'openai',
      NOTES_OPENAI_CHAT_BASE_URL: 'http://127.0.0.1:11434',
    });
    expect(refused).toEqual({
      error: expect.stringMatching(
        /^NOTES_TEXT_ENGINE=openai, but this bundle is wired for the bedrock text engine only/,
      ),
    });
  }, 60_000);

  it('a bundle built for the local engine runs it and refuses Bedrock', async () => {
    const url = await bundled('src/wiring/ask-services.ts', 'ask-local', 'local');
    expect(await runIsolated(askWiring(url), { NOTES_TEXT_ENGINE: 'local' })).toEqual({
      name: 'local-extractive',
    });
    expect(await runIsolated(askWiring(url), { NOTES_TEXT_ENGINE: 'bedrock' })).toEqual({
      error: expect.stringMatching(
        /^NOTES_TEXT_ENGINE=bedrock, but this bundle is wired for the local text engine only/,
      ),
    });
  }, 60_000);

  it("a bundle built for Bedrock leaves out the local engine's NLP model, which the local engine's own bundle carries", async () => {
    const files = async (textEngine: TextEngine) => {
      const outfile = join(outDir, `model-${textEngine}`, 'index.mjs');
      const { metafile } = await build({
        ...esbuildOptions(join(repositoryRoot, 'functions/generationWorker.ts'), outfile, { textEngine }),
        metafile: true,
      });
      return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    };
    const model = (inputs: string[]) => inputs.filter((input) => input.includes('wink-eng-lite-web-model'));
    expect(model(await files('bedrock'))).toEqual([]);
    expect(model(await files('local')).length).toBeGreaterThan(0);
  });

  it('a bundle carries the JSON schemas the providers are given exactly as the sources derive them', async () => {
    const url = await bundled('src/adapters/llm/schema.ts', 'schemas', STACK_TEXT_ENGINE);
    const script = `const s = await import(${JSON.stringify(url)});
process.stdout.write(JSON.stringify({ insights: s.insightsJsonSchema, answer: s.answerJsonSchema, ...s.artifactJsonSchemas }));`;
    expect(await runIsolated(script, {})).toEqual(derivedJsonSchemas());
  }, 60_000);
});
