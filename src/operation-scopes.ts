import type { McpScope } from './domain/scopes.ts';
import type { OperationId } from './routes.ts';

/**
 * The scopes an OAuth access token must hold to call each REST operation (DESIGN.md section 4): reads
 * need notes:read, renaming and organising notes:write, transcription and generation notes:process,
 * permanent deletion notes:delete, API key management see firstPartyOnlyOperations. API keys are held
 * to it too, with the scopes they were made with (src/http/rest-auth.ts). The
 * MCP tools of the same names ask for the same scopes (checked by test/unit/operation-scopes.test.ts).
 */
export const operationScopes = {
  getCurrentAccount: ['notes:read'],
  listNotes: ['notes:read'],
  getNote: ['notes:read'],
  updateNote: ['notes:write'],
  deleteNote: ['notes:delete'],
  submitTranscription: ['notes:process'],
  getTranscription: ['notes:read'],
  deleteTranscription: ['notes:delete'],
  generateInsights: ['notes:process'],
  getInsights: ['notes:read'],
  generateNoteArtifact: ['notes:process'],
  getNoteArtifact: ['notes:read'],
  // Reads notes and runs inference for the answer.
  askWorkspace: ['notes:read', 'notes:process'],
  searchNotes: ['notes:read'],
  editTranscription: ['notes:write'],
  undoTranscriptionEdit: ['notes:write'],
  findSimilarSegments: ['notes:read'],
  createCollection: ['notes:write'],
  listCollections: ['notes:read'],
  updateCollection: ['notes:write'],
  deleteCollection: ['notes:write'],
  addNoteToCollection: ['notes:write'],
  removeNoteFromCollection: ['notes:write'],
  // A new key holds its creator's scopes (or fewer), never more: making one needs no scope beyond
  // changing the account (functions/createApiKey.ts). Revoking a key or ending a session needs
  // nothing to end one's own, and notes:write with every scope of the key or session otherwise
  // (src/domain/accounts.ts, src/domain/sessions.ts): that depends on what is ended, not the call.
  listApiKeys: ['notes:read'],
  createApiKey: ['notes:write'],
  revokeApiKey: [],
  listSessions: ['notes:read'],
  endSession: [],
  endOtherSessions: [],
  getNoteAudio: ['notes:read'],
  // Voice profiles are biometric data: only the account's owner (an API key, or the web app) sees,
  // keeps or confirms them, never an agent's OAuth grant (firstPartyOnlyOperations).
  listVoiceProfiles: ['notes:read'],
  updateVoiceProfileSettings: ['notes:write'],
  createVoiceProfile: ['notes:write'],
  updateVoiceProfile: ['notes:write'],
  deleteVoiceProfile: ['notes:write'],
  reviewVoiceMatch: ['notes:write'],
} as const satisfies Record<OperationId, readonly McpScope[]>;

/**
 * Operations a token may call only when it was issued to the web app's own client (`notes-web`),
 * whatever its scopes: an MCP agent or any other OAuth client must not turn its revocable grant into
 * a long-lived key, nor revoke the user's keys, nor see or end the user's other sessions, nor see or keep anyone's voice profile. API keys may call them (the account owner's credential).
 */
export const firstPartyOnlyOperations: ReadonlySet<OperationId> = new Set([
  'listApiKeys',
  'createApiKey',
  'revokeApiKey',
  'listSessions',
  'endSession',
  'endOtherSessions',
  'listVoiceProfiles',
  'updateVoiceProfileSettings',
  'createVoiceProfile',
  'updateVoiceProfile',
  'deleteVoiceProfile',
  'reviewVoiceMatch',
]);

/** The scopes of `operationId` that `granted` lacks; empty when the token may call it. */
export function missingScopes(operationId: OperationId, granted: readonly McpScope[]): McpScope[] {
  return operationScopes[operationId].filter((scope) => !granted.includes(scope));
}
