import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../src/local/runtime.ts';
import { firstPartyOnlyOperations, operationScopes } from '../../src/operation-scopes.ts';
import type { OperationId } from '../../src/routes.ts';
import { type Api, client } from '../support/api.ts';
import { type InProcessService, startInProcess } from '../support/in-process-runtime.ts';
import { accessTokenFor } from '../support/oauth-flow.ts';

/**
 * Every operation of openapi.yaml driven into the refusals every operation has, over real HTTP: no
 * credential (401), an API key without a scope it needs (403), another OAuth client's token on an
 * operation reserved to API keys and the web app (403). Authentication runs before the input is
 * read (src/http/api-handler.ts), so no note, body or valid ID is needed, and the whole file costs a
 * few hundred milliseconds of requests. The test client checks each answer against the contract
 * (test/support/api.ts): a status the operation does not declare fails the test that received it.
 */
interface Operation {
  operationId: OperationId;
  method: string;
  path: string;
}

const SAMPLE_PARAMETERS: Record<string, string> = {
  artifact_kind: 'epiphany',
  speaker: 'Speaker%201',
};
const AN_ID = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';

async function contractOperations(): Promise<Operation[]> {
  const contract = parse(await readFile(join(REPO_ROOT, 'openapi.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: OperationId }>>;
  };
  return Object.entries(contract.paths).flatMap(([template, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      operation.operationId === undefined
        ? []
        : [
            {
              operationId: operation.operationId,
              method: method.toUpperCase(),
              path: template.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE_PARAMETERS[name] ?? AN_ID),
            },
          ],
    ),
  );
}

let service: InProcessService;
let operations: Operation[];
/** API keys made with one scope each: every operation with a scope lacks one of them. */
let readOnly: Api;
let deleteOnly: Api;
/** A REST token of an OAuth client that is not the web app (with the default grant). */
let otherClient: Api;

beforeAll(async () => {
  service = await startInProcess({ workers: false });
  const base = service.runtime.apiUrl;
  const apiKey = (await readFile(join(service.dataDir, 'api-key'), 'utf8')).trim();
  const keyWith = async (scope: string) => {
    const made = await service.api('POST', '/v1/account/keys', { body: { name: scope, scopes: [scope] } });
    expect(made.status).toBe(201);
    return client(base, String(made.body.api_key));
  };
  readOnly = await keyWith('notes:read');
  deleteOnly = await keyWith('notes:delete');
  const { access_token } = await accessTokenFor({ baseUrl: base, apiKey, resource: `${base}/v1` });
  otherClient = client(base, access_token);
  operations = await contractOperations();
});

afterAll(async () => {
  await service?.stop();
});

/**
 * What each operation answered: its status, or the client's report of an answer outside the
 * contract (collected rather than thrown, so that one run names every operation that breaks it).
 */
async function refusals(
  chosen: Operation[],
  credential: (operation: Operation) => Api,
  options: { key?: null } = {},
): Promise<{ operationId: string; status: number | string }[]> {
  const answers = [];
  for (const operation of chosen) {
    let status: number | string;
    try {
      status = (await credential(operation)(operation.method, operation.path, options)).status;
    } catch (error) {
      status = error instanceof Error ? error.message : String(error);
    }
    answers.push({ operationId: operation.operationId, status });
  }
  return answers;
}

describe('every refusal an operation can give is declared by openapi.yaml', () => {
  it('answers 401 to every operation called without a credential', async () => {
    const answers = await refusals(operations, () => service.api, { key: null });
    expect(answers).toEqual(operations.map(({ operationId }) => ({ operationId, status: 401 })));
  });

  it('answers 403 to an API key made without a scope the operation needs, for every operation that needs one', async () => {
    const scoped = operations.filter(({ operationId }) => operationScopes[operationId].length > 0);
    const answers = await refusals(scoped, ({ operationId }) =>
      (operationScopes[operationId] as readonly string[]).includes('notes:read') ? deleteOnly : readOnly,
    );
    expect(answers).toEqual(scoped.map(({ operationId }) => ({ operationId, status: 403 })));
  });

  it("answers 403 to another OAuth client's token on every operation reserved to API keys and the web app", async () => {
    const reserved = operations.filter(({ operationId }) => firstPartyOnlyOperations.has(operationId));
    expect(reserved).toHaveLength(firstPartyOnlyOperations.size);
    const answers = await refusals(reserved, () => otherClient);
    expect(answers).toEqual(reserved.map(({ operationId }) => ({ operationId, status: 403 })));
  });

  it('reaches a 403 of every operation in the contract, so none is left unchecked', () => {
    const unreached = operations.filter(
      ({ operationId }) =>
        operationScopes[operationId].length === 0 && !firstPartyOnlyOperations.has(operationId),
    );
    expect(unreached).toEqual([]);
    expect(operations.length).toBe(Object.keys(operationScopes).length);
  });
});
