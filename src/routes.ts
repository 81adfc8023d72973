/**
 * The route table, keyed by operationId. It drives the local API Gateway adapter, the CDK stack's
 * routes and functions, and the contract test (every operationId in openapi.yaml has exactly one
 * route and one handler file `functions/<operationId>.ts`).
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What an operation does to data; the CDK stack grants each function only what its access needs. */
export type Access = 'read' | 'write' | 'delete';

export interface ApiRoute {
  method: HttpMethod;
  path: string;
  access: Access;
}

export const apiRoutes = {
  getCurrentAccount: { method: 'GET', path: '/v1/account', access: 'read' },
  listNotes: { method: 'GET', path: '/v1/notes', access: 'read' },
  getNote: { method: 'GET', path: '/v1/notes/{note_id}', access: 'read' },
  updateNote: { method: 'PATCH', path: '/v1/notes/{note_id}', access: 'write' },
  deleteNote: { method: 'DELETE', path: '/v1/notes/{note_id}', access: 'delete' },
  submitTranscription: { method: 'POST', path: '/v1/notes/{note_id}/transcription', access: 'write' },
  getTranscription: { method: 'GET', path: '/v1/notes/{note_id}/transcription', access: 'read' },
  deleteTranscription: { method: 'DELETE', path: '/v1/notes/{note_id}/transcription', access: 'delete' },
} as const satisfies Record<string, ApiRoute>;

export type OperationId = keyof typeof apiRoutes;

/**
 * In the contract but not implemented in this release (marked `x-implemented: false` there). The local
 * runtime answers them 501; they get routes and handlers when they are built.
 */
export const plannedOperations = [
  'generateInsights',
  'getInsights',
  'generateNoteArtifact',
  'askWorkspace',
] as const;

/** Queue-driven functions: the local event-source loop and the CDK event source mappings use this. */
export const queueWorkers = {
  transcriptionWorker: { queue: 'transcription' },
  transcriptionDeadLetter: { queue: 'transcriptionDlq' },
} as const;

export type QueueWorkerName = keyof typeof queueWorkers;

/** Handler file of an operation or worker, relative to the repository root. */
export function handlerEntry(name: OperationId | QueueWorkerName): string {
  return `functions/${name}.ts`;
}
