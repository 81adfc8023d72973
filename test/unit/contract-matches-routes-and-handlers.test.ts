import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RECORDING_CONTENT_TYPES } from '../../src/domain/recording-types.ts';
import { apiRoutes, eventWorkers, handlerEntry, publicRoutes, queueWorkers } from '../../src/routes.ts';

const root = resolve(import.meta.dirname, '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  raw: Record<string, unknown>;
}

function contractOperations(): ContractOperation[] {
  const contract = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  return Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        operationId: String(operation.operationId),
        method: method.toUpperCase(),
        path,
        raw: operation,
      })),
  );
}

describe('the contract, the route table and the handlers agree', () => {
  const operations = contractOperations();

  it("lists the spec's twelve operationIds, getNoteArtifact (the artifact's read), the collection operations, the transcript corrections (and the similar segments they propose), the sessions and the voice profiles, each once", () => {
    const ids = operations.map((operation) => operation.operationId).sort();
    expect(ids).toEqual(
      [
        'addNoteToCollection',
        'askWorkspace',
        'createApiKey',
        'createCollection',
        'deleteCollection',
        'deleteNote',
        'deleteTranscription',
        'generateInsights',
        'generateNoteArtifact',
        'getCurrentAccount',
        'getInsights',
        'getNote',
        'getNoteArtifact',
        'getNoteAudio',
        'getTranscription',
        'listApiKeys',
        'listCollections',
        'listNotes',
        'removeNoteFromCollection',
        'revokeApiKey',
        'searchNotes',
        'submitTranscription',
        'updateCollection',
        'updateNote',
        // Transcript corrections (issue 14).
        'editTranscription',
        'undoTranscriptionEdit',
        // Corrections that teach (issue 37).
        'findSimilarSegments',
        // Sessions (issue 35).
        'listSessions',
        'endSession',
        'endOtherSessions',
        // Voices known across notes (issue 37).
        'listVoiceProfiles',
        'updateVoiceProfileSettings',
        'createVoiceProfile',
        'updateVoiceProfile',
        'deleteVoiceProfile',
        'reviewVoiceMatch',
      ].sort(),
    );
  });

  it('gives every contract operation exactly one route with the same method and path', () => {
    for (const operation of operations) {
      const route = apiRoutes[operation.operationId as keyof typeof apiRoutes];
      expect(route, `${operation.operationId} has no route`).toBeDefined();
      expect(`${route.method} ${route.path}`).toBe(`${operation.method} ${operation.path}`);
    }
  });

  it('has no route that the contract does not describe', () => {
    const described = new Set(operations.map((op) => op.operationId));
    expect(Object.keys(apiRoutes).filter((id) => !described.has(id))).toEqual([]);
  });

  it('has one handler file exporting `handler` for every route and worker, and no other handler files', async () => {
    const names = [
      ...Object.keys(apiRoutes),
      ...Object.keys(publicRoutes),
      ...Object.keys(queueWorkers),
      ...Object.keys(eventWorkers),
    ] as Array<keyof typeof apiRoutes>;
    for (const name of names) {
      const file = join(root, handlerEntry(name));
      expect(existsSync(file), `${file} is missing`).toBe(true);
      const module = (await import(file)) as { handler?: unknown };
      expect(typeof module.handler, `${name} exports no handler`).toBe('function');
    }
    const files = readdirSync(join(root, 'functions')).map((file) => file.replace(/\.ts$/, ''));
    expect(files.sort()).toEqual([...names].sort());
  });

  it('accepts the same recording content types in the contract and in request validation', () => {
    const contract = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as {
      components: { schemas: Record<string, { enum?: string[] }> };
    };
    expect([...(contract.components.schemas.AudioContentType?.enum ?? [])].sort()).toEqual(
      [...RECORDING_CONTENT_TYPES].sort(),
    );
  });

  it('lints clean with Redocly', async () => {
    const redocly = join(root, 'node_modules', '.bin', 'redocly');
    const { stdout, stderr } = await promisify(execFile)(
      redocly,
      ['lint', 'openapi.yaml', '--format', 'stylish'],
      {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    // execFile rejects on a non-zero exit (errors); warnings are reported in the summary line.
    const report = `${stdout}${stderr}`;
    expect(report).toContain('Your API description is valid');
    expect(report).not.toMatch(/You have \d+ warning/);
  }, 60_000);
});
