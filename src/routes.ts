/**
 * The route table, keyed by operationId. It drives the local API Gateway adapter, the CDK stack's
 * routes and functions, and the contract test (every operationId in openapi.yaml has exactly one
 * route and one handler file `functions/<operationId>.ts`).
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * What each function needs of the infrastructure. The CDK stack grants exactly this, so only the
 * handlers that delete can delete. The reads of stored results write too: a result that can no
 * longer be read fails its job (src/domain/stored-results.ts). Every API function also reads
 * the table to check the caller's API key, and the signing key's public half (`tokenKey: 'verify'`,
 * added by lib/constructs/api.ts) to verify OAuth access tokens.
 *
 * - table: `read` (get, query) or `write` (read plus put, update, delete items)
 * - objects: any of `read` (get), `write` (put; presigned uploads are signed with it), `delete` (list, delete)
 * - queue: the queue (or queues) a function sends to
 */
export type WorkQueueName = 'transcription' | 'generation';

export interface Needs {
  /** Absent: the function never touches the table (the REST preflight answers from configuration). */
  table?: 'read' | 'write';
  objects?: ReadonlyArray<'read' | 'write' | 'delete'>;
  queue?: WorkQueueName | ReadonlyArray<WorkQueueName>;
  /** Invoke the configured Bedrock models (the text engine on AWS). */
  models?: true;
  /** Synthesize speech with Amazon Polly (podcast audio on AWS). */
  voices?: true;
  /** The access-token signing key (AWS KMS): `verify` reads its public key, `sign` also signs. */
  tokenKey?: 'verify' | 'sign';
}

export interface ApiRoute {
  method: HttpMethod;
  path: string;
  needs: Needs;
}

export const apiRoutes = {
  getCurrentAccount: { method: 'GET', path: '/v1/account', needs: { table: 'read' } },
  listVoiceProfiles: { method: 'GET', path: '/v1/account/voice-profiles', needs: { table: 'read' } },
  // Turning profiles off deletes them.
  updateVoiceProfileSettings: {
    method: 'PATCH',
    path: '/v1/account/voice-profiles',
    needs: { table: 'write' },
  },
  // Reads the note's transcript and voices; marks the note's speaker as the known voice.
  createVoiceProfile: {
    method: 'POST',
    path: '/v1/account/voice-profiles',
    needs: { table: 'write', objects: ['read'] },
  },
  updateVoiceProfile: {
    method: 'PATCH',
    path: '/v1/account/voice-profiles/{profile_id}',
    needs: { table: 'write' },
  },
  deleteVoiceProfile: {
    method: 'DELETE',
    path: '/v1/account/voice-profiles/{profile_id}',
    needs: { table: 'write' },
  },
  // Answers with the note (transcript included); a confirmation teaches the profile the speaker's voice.
  reviewVoiceMatch: {
    method: 'POST',
    path: '/v1/notes/{note_id}/voice-matches/{speaker}',
    needs: { table: 'write', objects: ['read'] },
  },
  listNotes: { method: 'GET', path: '/v1/notes', needs: { table: 'read' } },
  // Reads may mark a job whose stored result can no longer be read as failed (stored-results.ts).
  getNote: { method: 'GET', path: '/v1/notes/{note_id}', needs: { table: 'write', objects: ['read'] } },
  // Answers with the updated note, transcript included.
  updateNote: { method: 'PATCH', path: '/v1/notes/{note_id}', needs: { table: 'write', objects: ['read'] } },
  deleteNote: {
    method: 'DELETE',
    path: '/v1/notes/{note_id}',
    needs: { table: 'write', objects: ['delete'] },
  },
  submitTranscription: {
    method: 'POST',
    path: '/v1/notes/{note_id}/transcription',
    needs: { table: 'write', objects: ['write'], queue: 'transcription' },
  },
  getTranscription: {
    method: 'GET',
    path: '/v1/notes/{note_id}/transcription',
    needs: { table: 'write', objects: ['read'] },
  },
  deleteTranscription: {
    method: 'DELETE',
    path: '/v1/notes/{note_id}/transcription',
    needs: { table: 'write', objects: ['delete'] },
  },
  generateInsights: {
    method: 'POST',
    path: '/v1/notes/{note_id}/insights',
    needs: { table: 'write', queue: 'generation' },
  },
  getInsights: {
    method: 'GET',
    path: '/v1/notes/{note_id}/insights',
    needs: { table: 'write', objects: ['read'] },
  },
  // Reads the transcript's language to check the requested one before queueing.
  generateNoteArtifact: {
    method: 'POST',
    path: '/v1/notes/{note_id}/artifacts/{artifact_kind}',
    needs: { table: 'write', objects: ['read'], queue: 'generation' },
  },
  // Signs the podcast audio's download link.
  getNoteArtifact: {
    method: 'GET',
    path: '/v1/notes/{note_id}/artifacts/{artifact_kind}',
    needs: { table: 'write', objects: ['read'] },
  },
  // Reads the index and the best notes' transcripts, then calls the text engine in the request.
  askWorkspace: {
    method: 'POST',
    path: '/v1/ask',
    needs: { table: 'read', objects: ['read'], models: true },
  },
  // Reads the index and the page's transcripts. /v1/search, not /v1/notes/search: no path of a search
  // can be read as /v1/notes/{note_id}.
  searchNotes: { method: 'GET', path: '/v1/search', needs: { table: 'read', objects: ['read'] } },
  createCollection: { method: 'POST', path: '/v1/collections', needs: { table: 'write' } },
  listCollections: { method: 'GET', path: '/v1/collections', needs: { table: 'read' } },
  updateCollection: { method: 'PATCH', path: '/v1/collections/{collection_id}', needs: { table: 'write' } },
  // Removes the collection and its filings, never the notes.
  deleteCollection: { method: 'DELETE', path: '/v1/collections/{collection_id}', needs: { table: 'write' } },
  addNoteToCollection: {
    method: 'POST',
    path: '/v1/collections/{collection_id}/notes',
    needs: { table: 'write' },
  },
  removeNoteFromCollection: {
    method: 'DELETE',
    path: '/v1/collections/{collection_id}/notes/{note_id}',
    needs: { table: 'write' },
  },
  // API key management (issue 15): API keys and the web app's own tokens only (src/operation-scopes.ts).
  listApiKeys: { method: 'GET', path: '/v1/account/keys', needs: { table: 'read' } },
  createApiKey: { method: 'POST', path: '/v1/account/keys', needs: { table: 'write' } },
  revokeApiKey: { method: 'DELETE', path: '/v1/account/keys/{key_id}', needs: { table: 'write' } },
  // Sessions (issue 35): the account's signed-in applications and browsers; API keys and the web
  // app's own tokens only, as key management (src/operation-scopes.ts).
  listSessions: { method: 'GET', path: '/v1/account/sessions', needs: { table: 'read' } },
  endOtherSessions: { method: 'DELETE', path: '/v1/account/sessions', needs: { table: 'write' } },
  endSession: { method: 'DELETE', path: '/v1/account/sessions/{session_id}', needs: { table: 'write' } },
  // Signs a short-lived playback link to the note's recording (issue 15).
  getNoteAudio: {
    method: 'GET',
    path: '/v1/notes/{note_id}/audio',
    needs: { table: 'read', objects: ['read'] },
  },
  // Corrections: a new revision object (and removing it when another change won), the job's pointer,
  // the index entry rebuilt.
  editTranscription: {
    method: 'POST',
    path: '/v1/notes/{note_id}/transcription/edits',
    needs: { table: 'write', objects: ['read', 'write', 'delete'] },
  },
  undoTranscriptionEdit: {
    method: 'POST',
    path: '/v1/notes/{note_id}/transcription/undo',
    needs: { table: 'write', objects: ['read'] },
  },
  // Reads the transcript and the voices kept beside it (a POST for its body of examples); a transcript
  // found unreadable is marked lost, as getTranscription does.
  findSimilarSegments: {
    method: 'POST',
    path: '/v1/notes/{note_id}/transcription/similar-segments',
    needs: { table: 'write', objects: ['read'] },
  },
} as const satisfies Record<string, ApiRoute>;

export type OperationId = keyof typeof apiRoutes;

/**
 * Routes that are not REST operations of the contract: the MCP endpoint (OAuth access tokens, not
 * API keys) and the OAuth authorization server in front of it. Each is one function
 * `functions/<name>.ts` serving the listed method/path pairs; none takes an API key. The `OPTIONS`
 * endpoints answer browsers' CORS preflights in the handler (API Gateway has no CORS configuration,
 * so it routes them like any request, and the local runtime does the same).
 */
export interface PublicRoute {
  endpoints: ReadonlyArray<{ method: HttpMethod; path: string }>;
  needs: Needs;
}

export const publicRoutes = {
  // Streamable HTTP, stateless, POST only (a GET would open a stream that never ends). GET and DELETE
  // reach the handler only to be answered 405, as the MCP spec asks (SDK clients then carry on), with
  // CORS headers for browser clients of allowed origins.
  mcp: {
    endpoints: [
      { method: 'POST', path: '/mcp' },
      { method: 'GET', path: '/mcp' },
      { method: 'DELETE', path: '/mcp' },
      { method: 'OPTIONS', path: '/mcp' },
    ],
    needs: {
      table: 'write',
      objects: ['read', 'delete'],
      queue: 'generation',
      models: true,
      tokenKey: 'verify',
    },
  },
  // RFC 9728 (root and path forms; /v1 is the REST API's), RFC 8414, and the token signing keys.
  oauthMetadata: {
    endpoints: [
      { method: 'GET', path: '/.well-known/oauth-protected-resource' },
      { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' },
      { method: 'GET', path: '/.well-known/oauth-protected-resource/v1' },
      { method: 'GET', path: '/.well-known/oauth-authorization-server' },
      { method: 'GET', path: '/oauth/jwks' },
      { method: 'OPTIONS', path: '/.well-known/oauth-protected-resource' },
      { method: 'OPTIONS', path: '/.well-known/oauth-protected-resource/mcp' },
      { method: 'OPTIONS', path: '/.well-known/oauth-protected-resource/v1' },
      { method: 'OPTIONS', path: '/.well-known/oauth-authorization-server' },
      { method: 'OPTIONS', path: '/oauth/jwks' },
    ],
    needs: { table: 'read', tokenKey: 'verify' },
  },
  oauthRegister: {
    endpoints: [
      { method: 'POST', path: '/oauth/register' },
      { method: 'OPTIONS', path: '/oauth/register' },
    ],
    needs: { table: 'write', tokenKey: 'verify' },
  },
  // The authorization request, the sign-in and consent pages (GET) and their form posts (POST): a
  // top-level navigation of the user's browser, never a cross-origin fetch, so no CORS.
  oauthAuthorize: {
    endpoints: [
      { method: 'GET', path: '/oauth/authorize' },
      { method: 'POST', path: '/oauth/authorize' },
    ],
    needs: { table: 'write', tokenKey: 'verify' },
  },
  // Where the upstream identity provider (Cognito on AWS) returns the user after sign-in.
  oauthCallback: {
    endpoints: [{ method: 'GET', path: '/oauth/callback' }],
    needs: { table: 'write', tokenKey: 'verify' },
  },
  // The only function that signs access tokens.
  oauthToken: {
    endpoints: [
      { method: 'POST', path: '/oauth/token' },
      { method: 'OPTIONS', path: '/oauth/token' },
    ],
    needs: { table: 'write', tokenKey: 'sign' },
  },
  oauthRevoke: {
    endpoints: [
      { method: 'POST', path: '/oauth/revoke' },
      { method: 'OPTIONS', path: '/oauth/revoke' },
    ],
    needs: { table: 'write', tokenKey: 'verify' },
  },
  // CORS preflights of the web app when it is served from another origin than the API (AWS:
  // CloudFront). API Gateway's own CORS setting would also take over the MCP and OAuth preflights.
  restPreflight: {
    endpoints: [{ method: 'OPTIONS', path: '/v1/{proxy+}' }],
    needs: {},
  },
} as const satisfies Record<string, PublicRoute>;

export type PublicRouteName = keyof typeof publicRoutes;

/** Queue-driven functions: the local event-source loop and the CDK event source mappings use this. */
export const queueWorkers = {
  // Takes each completed upload (S3 event): reads the stored size, records it, queues the job and
  // requests its transcription; removes a recording uploaded for a note deleted since.
  uploadReceived: {
    queue: 'uploads',
    needs: { table: 'write', objects: ['read', 'delete'], queue: 'transcription' },
  },
  // Fails the job of an upload that could not be taken; records the stored recording on its note.
  uploadsDeadLetter: { queue: 'uploadsDlq', needs: { table: 'write', objects: ['read'] } },
  // Deletes audio that turns out not to be audio; writes transcripts.
  transcriptionWorker: {
    queue: 'transcription',
    needs: { table: 'write', objects: ['read', 'write', 'delete'] },
  },
  transcriptionDeadLetter: { queue: 'transcriptionDlq', needs: { table: 'write' } },
  // Reads transcripts, writes Insights and artifacts, calls the text engine and the speech synthesizer;
  // work a provider throttled is sent again to its own queue to wait for the quota (throttle-wait.ts).
  generationWorker: {
    queue: 'generation',
    needs: {
      table: 'write',
      objects: ['read', 'write', 'delete'],
      models: true,
      voices: true,
      queue: 'generation',
    },
  },
  generationDeadLetter: { queue: 'generationDlq', needs: { table: 'write' } },
} as const satisfies Record<string, { queue: string; needs: Needs }>;

export type QueueWorkerName = keyof typeof queueWorkers;

/**
 * Functions driven by EventBridge, on AWS only: with Amazon Transcribe the recognition runs as a
 * Transcribe job, and its "Transcribe Job State Change" event finishes the note's job; schedules run
 * the reconciler, which does what the local runtime's start-up recovery does, and the retention,
 * which the local runtime runs on its own timer.
 */
export const eventWorkers = {
  // A job Transcribe failed on its side is queued for a new run (transcription queue).
  transcriptionCompleted: {
    event: 'transcribeJobStateChange',
    needs: { table: 'write', objects: ['read', 'write', 'delete'], queue: 'transcription' },
  },
  // Reads the in-flight index, re-queues work (either queue) and finishes a missed Transcribe job as
  // transcriptionCompleted would (its object access); looks for an upload that came (objects read).
  reconcileJobs: {
    event: 'schedule',
    needs: {
      table: 'write',
      objects: ['read', 'write', 'delete'],
      queue: ['transcription', 'generation'],
    },
  },
  // Collections' retention periods (src/domain/retention.ts): trashes notes (table) and deletes the
  // ones it trashed once their trash period is over, as deleteNote does (table, objects delete).
  applyRetention: {
    event: 'schedule',
    needs: { table: 'write', objects: ['delete'] },
  },
} as const satisfies Record<string, { event: string; needs: Needs }>;

export type EventWorkerName = keyof typeof eventWorkers;

/** Handler file of an operation or worker, relative to the repository root. */
export function handlerEntry(
  name: OperationId | PublicRouteName | QueueWorkerName | EventWorkerName,
): string {
  return `functions/${name}.ts`;
}
