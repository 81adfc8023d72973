/**
 * What a Lambda handler reads at cold start: its index.mjs and the chunks that imports statically
 * (lib/bundling.ts splits the code). Packages a handler needs only on some paths must be in chunks
 * of their own, shipped in the asset but not read until used; what its `needs` exclude is not
 * shipped at all. Bundled as the stack does (lib/bundling.ts); the metafile says which package went
 * into which output file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, STACK_TEXT_ENGINE } from '../../lib/bundling.ts';
import { repositoryRoot } from '../../lib/paths.ts';
import {
  apiRoutes,
  eventWorkers,
  handlerEntry,
  type Needs,
  publicRoutes,
  queueWorkers,
} from '../../src/routes.ts';
import { defined } from './support.ts';

let outRoot: string;

beforeAll(async () => {
  outRoot = await mkdtemp(join(tmpdir(), 'notes-cold-start-'));
});

afterAll(async () => {
  await rm(outRoot, { recursive: true, force: true });
});

interface HandlerPackages {
  /** Packages in index.mjs and its static imports, transitively. */
  coldStart: Set<string>;
  /** Packages anywhere in the asset. */
  shipped: Set<string>;
  /** The source files (node_modules paths included) of the cold-start code. */
  coldStartInputs: string[];
  /**
   * Those of them that left code in it: a module esbuild tree-shook stays listed, with 0 bytes or the
   * ~20 bytes of its bookkeeping.
   */
  coldStartCode: string[];
}

type HandlerName = Parameters<typeof handlerEntry>[0];

/** The handler bundled as the stack deploys it, with its `needs`. */
function packagesOf(handler: HandlerName): HandlerPackages {
  const outDir = join(outRoot, handler);
  const metafile = bundleHandler(join(repositoryRoot, handlerEntry(handler)), outDir, {
    needs: needsOf(handler),
    textEngine: STACK_TEXT_ENGINE,
  });
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path) || !metafile.outputs[path]) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path].imports) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(relative(process.cwd(), join(outDir, 'index.mjs')));
  return {
    coldStart: packagesIn(metafile, loaded),
    shipped: packagesIn(metafile, new Set(Object.keys(metafile.outputs))),
    coldStartInputs: [...loaded].flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {})),
    coldStartCode: [...loaded].flatMap((output) =>
      Object.entries(metafile.outputs[output]?.inputs ?? {})
        .filter(([, input]) => input.bytesInOutput > 64)
        .map(([path]) => path),
    ),
  };
}

function needsOf(handler: HandlerName): Needs {
  const tables: Record<string, { needs: Needs }> = {
    ...apiRoutes,
    ...publicRoutes,
    ...queueWorkers,
    ...eventWorkers,
  };
  return defined(tables[handler], handler).needs;
}

function packagesIn(metafile: Metafile, outputs: Set<string>): Set<string> {
  const packages = new Set<string>();
  for (const output of outputs) {
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[output]?.inputs ?? {})) {
      if (bytesInOutput === 0) continue;
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (name) packages.add(name);
    }
  }
  return packages;
}

describe('what a handler reads at cold start', () => {
  it('a REST handler reads neither the token verifier (jose, KMS) nor the tracer, S3, SQS or Metrics; it ships them for first use', () => {
    const { coldStart, shipped } = packagesOf('submitTranscription');
    const onFirstUse = [
      'jose',
      '@aws-sdk/client-kms',
      'aws-xray-sdk-core',
      '@aws-lambda-powertools/tracer',
      '@aws-sdk/client-s3',
      '@aws-sdk/client-sqs',
      '@aws-lambda-powertools/metrics',
    ];
    for (const name of onFirstUse) {
      expect(coldStart, name).not.toContain(name);
      expect(shipped, name).toContain(name);
    }
    expect(coldStart).toContain('@aws-sdk/client-dynamodb');
    expect(coldStart).toContain('@aws-lambda-powertools/logger');
  });

  it('a REST handler whose needs hold no objects and no queue neither reads nor ships S3 or SQS', () => {
    expect(apiRoutes.getCurrentAccount.needs).toEqual({ table: 'read' });
    const { coldStart, shipped } = packagesOf('getCurrentAccount');
    for (const name of ['@aws-sdk/client-s3', '@aws-sdk/client-sqs']) {
      expect(shipped, name).not.toContain(name);
    }
    expect(coldStart).toContain('@aws-sdk/client-dynamodb');
  });

  it('a REST handler that reads objects but queues nothing ships S3 for first use and no SQS', () => {
    expect(apiRoutes.getNote.needs).toEqual({ table: 'write', objects: ['read'] });
    const { coldStart, shipped } = packagesOf('getNote');
    expect(coldStart).not.toContain('@aws-sdk/client-s3');
    expect(shipped).toContain('@aws-sdk/client-s3');
    expect(shipped).not.toContain('@aws-sdk/client-sqs');
  });

  it('REST handlers validate with zod/mini: the classic API of zod (its methods on every schema) is not in their cold start', () => {
    for (const handler of [
      'getCurrentAccount',
      'createApiKey',
      'getNote',
      'editTranscription',
      'askWorkspace',
    ] as const) {
      const { coldStartInputs } = packagesOf(handler);
      expect(
        coldStartInputs.filter((input) => input.includes('node_modules/zod/v4/classic/')),
        handler,
      ).toEqual([]);
      expect(
        coldStartInputs.some((input) => input.includes('node_modules/zod/v4/mini/')),
        handler,
      ).toBe(true);
    }
  });

  it("Ask's bundle is wired for the stack's Bedrock only: no OpenAI chat adapter, no extractive engine, no toJSONSchema; the Bedrock client is read on the first answer", () => {
    const { coldStart, shipped, coldStartCode } = packagesOf('askWorkspace');
    expect(coldStart).not.toContain('@aws-sdk/client-bedrock-runtime');
    expect(shipped).toContain('@aws-sdk/client-bedrock-runtime');
    expect(
      coldStartCode.filter((input) => /openai-chat|adapters\/extractive\/|to-json-schema/.test(input)),
    ).toEqual([]);
    expect(coldStartCode).toContain('src/adapters/llm/bedrock-answer.ts');
  });

  it("the generation worker's bundle, wired for Bedrock, reads neither wink-nlp's model nor the OpenAI chat adapter at cold start", () => {
    const { coldStart, shipped, coldStartCode } = packagesOf('generationWorker');
    for (const name of ['wink-eng-lite-web-model', 'wink-nlp']) expect(coldStart, name).not.toContain(name);
    expect(coldStart).not.toContain('@aws-sdk/client-bedrock-runtime');
    expect(shipped).toContain('@aws-sdk/client-bedrock-runtime');
    // The engines and wink-nlp's loader; extractive/dates.ts leaves its module-level regexes (0.6 KB).
    expect(
      coldStartCode.filter((input) =>
        /openai-chat|adapters\/extractive\/(engine|nlp|artifacts\/engine)\.ts/.test(input),
      ),
    ).toEqual([]);
    expect(coldStartCode).toContain('src/adapters/llm/bedrock-insights.ts');
  });

  it('the token endpoint, which signs, reads the KMS client only when it first signs', () => {
    const { coldStart, shipped } = packagesOf('oauthToken');
    expect(coldStart).not.toContain('@aws-sdk/client-kms');
    expect(shipped).toContain('@aws-sdk/client-kms');
  });
});
