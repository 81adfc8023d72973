import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../src/local/runtime.ts';

/**
 * Checks real responses against openapi.yaml: the status is one the operation declares, the media
 * type is one declared for that status, and the body (and any declared header) satisfies its schema.
 * The contract is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: Ajv's 2020 validator reads them
 * as they are (OpenAPI-only keywords such as `example` are ignored, not rejected).
 */

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, { schema?: unknown; $ref?: string }>;
}

interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { responses: Record<string, ResponseObject>; headers?: Record<string, { schema?: unknown }> };
}

export interface ObservedResponse {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const DOCUMENT_ID = 'openapi.yaml';

// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped once more.
export const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

const contract = parse(readFileSync(join(REPO_ROOT, 'openapi.yaml'), 'utf8')) as OpenApi;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(contract as object, DOCUMENT_ID);

const routes = Object.entries(contract.paths).map(([template, item]) => ({
  template,
  item,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** A JSON pointer segment (RFC 6901). */
function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function validatorAt(pointer: string) {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${pointer}`);
  if (!validate) throw new Error(`openapi.yaml has no schema at ${pointer}`);
  return validate;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 10)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`)
    .join('; ');
}

/** The operation a request reached, or undefined when the contract has no such method and path. */
export function operationFor(
  method: string,
  path: string,
): { template: string; operation: Operation } | undefined {
  const pathname = path.split('?')[0] ?? path;
  const lower = method.toLowerCase();
  if (!METHODS.has(lower)) return undefined;
  for (const route of routes) {
    const operation = route.item[lower] as Operation | undefined;
    if (operation && route.pattern.test(pathname)) return { template: route.template, operation };
  }
  return undefined;
}

/**
 * What is wrong with a response according to the contract; empty when it complies, and when the
 * request reached no operation of the contract (an unknown route is not the contract's business).
 * A 5xx the operation does not declare must still be an `Error` body: server failures are not
 * listed per operation, but their shape is the contract's.
 */
export function contractViolations(observed: ObservedResponse): string[] {
  const found = operationFor(observed.method, observed.path);
  if (!found) return [];
  const { template, operation } = found;
  const where = `${operation.operationId} ${observed.status}`;
  const status = String(observed.status);
  let response = operation.responses[status];
  let pointer = `/paths/${pointerSegment(template)}/${observed.method.toLowerCase()}/responses/${status}`;
  if (!response) {
    if (observed.status < 500) return [`${where}: status ${status} is not declared by the operation`];
    return checkJson(observed, '/components/schemas/Error', `${where} (undeclared server error)`);
  }
  if (response.$ref) {
    const name = response.$ref.replace('#/components/responses/', '');
    response = contract.components.responses[name] ?? {};
    pointer = `/components/responses/${pointerSegment(name)}`;
  }

  const problems: string[] = [];
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const value = observed.headers.get(name);
    // A header defined once under components/headers is checked against that definition.
    const shared = declared.$ref?.replace('#/components/headers/', '');
    const header = shared === undefined ? declared : (contract.components.headers?.[shared] ?? {});
    if (value === null || !header.schema) continue;
    const headerPointer =
      shared === undefined
        ? `${pointer}/headers/${pointerSegment(name)}`
        : `/components/headers/${pointerSegment(shared)}`;
    const validate = validatorAt(`${headerPointer}/schema`);
    if (!validate(value)) problems.push(`${where}: header ${name}: ${describeErrors(validate.errors)}`);
  }

  if (!response.content) {
    if (observed.text.length > 0) problems.push(`${where}: the contract declares no body, got one`);
    return problems;
  }
  const mediaType = (observed.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!(mediaType in response.content)) {
    problems.push(
      `${where}: media type '${mediaType}' is not declared (${Object.keys(response.content).join(', ')})`,
    );
    return problems;
  }
  const schemaPointer = `${pointer}/content/${pointerSegment(mediaType)}/schema`;
  if (mediaType === 'application/json') return [...problems, ...checkJson(observed, schemaPointer, where)];
  const validate = validatorAt(schemaPointer);
  if (!validate(observed.text)) problems.push(`${where}: ${describeErrors(validate.errors)}`);
  return problems;
}

function checkJson(observed: ObservedResponse, schemaPointer: string, where: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(observed.text);
  } catch {
    return [`${where}: the body is not JSON`];
  }
  const validate = validatorAt(schemaPointer);
  return validate(body) ? [] : [`${where}: ${describeErrors(validate.errors)}`];
}

/** Whether a value satisfies a schema of the contract, given by its JSON pointer (`/components/...`). */
export function satisfiesContract(pointer: string, value: unknown): boolean {
  return validatorAt(pointer)(value) === true;
}

/** Throws, naming every violation, when a response does not satisfy the contract. */
export function assertMatchesContract(observed: ObservedResponse): void {
  const problems = contractViolations(observed);
  if (problems.length > 0) {
    throw new Error(
      `${observed.method} ${observed.path} answered outside the contract (openapi.yaml):\n${problems.join('\n')}`,
    );
  }
}
