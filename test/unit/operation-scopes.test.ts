import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/mcp/tools.ts';
import { firstPartyOnlyOperations, missingScopes, operationScopes } from '../../src/operation-scopes.ts';
import { apiRoutes, type OperationId } from '../../src/routes.ts';

describe('the scopes each operation needs', () => {
  it('names every REST operation of the route table', () => {
    expect(Object.keys(operationScopes).sort()).toEqual(Object.keys(apiRoutes).sort());
  });

  it.each(Object.keys(operationScopes) as OperationId[])(
    'asks the same scopes of a token at REST and at the MCP tool %s',
    (operationId) => {
      const tool = findTool(operationId);
      if (tool) expect([...tool.scopes].sort()).toEqual([...operationScopes[operationId]].sort());
      else expect(['submitTranscription', ...firstPartyOnlyOperations]).toContain(operationId);
    },
  );

  it('maps reads, changes, processing and deletion to their scopes', () => {
    expect(operationScopes.listNotes).toEqual(['notes:read']);
    expect(operationScopes.updateNote).toEqual(['notes:write']);
    expect(operationScopes.submitTranscription).toEqual(['notes:process']);
    expect(operationScopes.deleteNote).toEqual(['notes:delete']);
  });

  it('keeps API key, session and voice profile management from MCP: no tool, and only the web app client among OAuth clients', () => {
    expect([...firstPartyOnlyOperations].sort()).toEqual([
      'createApiKey',
      'createVoiceProfile',
      'deleteVoiceProfile',
      'endOtherSessions',
      'endSession',
      'listApiKeys',
      'listSessions',
      'listVoiceProfiles',
      'reviewVoiceMatch',
      'revokeApiKey',
      'updateVoiceProfile',
      'updateVoiceProfileSettings',
    ]);
    for (const operationId of firstPartyOnlyOperations) expect(findTool(operationId)).toBeUndefined();
    // A key holds its creator's scopes, so making one needs no scope beyond changing the account.
    expect(operationScopes.createApiKey).toEqual(['notes:write']);
  });

  it('lists what a token lacks for an operation, nothing when it holds the scopes', () => {
    expect(missingScopes('askWorkspace', ['notes:read'])).toEqual(['notes:process']);
    expect(missingScopes('askWorkspace', ['notes:process', 'notes:read'])).toEqual([]);
  });
});
