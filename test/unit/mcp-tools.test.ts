import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer, runTool } from '../../src/mcp/server.ts';
import { findTool, MCP_TOOL_NAMES, MCP_TOOLS, type ToolContext } from '../../src/mcp/tools.ts';
import type { AccessGrant } from '../../src/ports/access-tokens.ts';
import { apiRoutes } from '../../src/routes.ts';
import type { AskServices } from '../../src/wiring/ask-services.ts';
import type { Services } from '../../src/wiring/services.ts';

const NOTE = '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34';
const OTHER_NOTE = '8d0c6a52-1e7f-4b3a-9c2d-5f6e7a8b9c01';

/** A smallest valid input per tool. */
const VALID_INPUT: Record<string, Record<string, unknown>> = {
  getCurrentAccount: {},
  listNotes: {},
  getNote: { note_id: NOTE },
  getTranscription: { note_id: NOTE },
  generateInsights: { note_id: NOTE },
  getInsights: { note_id: NOTE },
  generateNoteArtifact: { note_id: NOTE, artifact_kind: 'podcast' },
  getNoteArtifact: { note_id: NOTE, artifact_kind: 'epiphany' },
  getNoteAudio: { note_id: NOTE },
  askWorkspace: { question: 'What did we decide?' },
  updateNote: { note_id: NOTE, title: 'Renamed' },
  deleteTranscription: { note_id: NOTE, confirm_note_id: NOTE },
  deleteNote: { note_id: NOTE, confirm_note_id: NOTE },
  listCollections: {},
  createCollection: { name: 'Product' },
  updateCollection: { collection_id: NOTE, name: 'Product 2027' },
  deleteCollection: { collection_id: NOTE },
  addNoteToCollection: { collection_id: NOTE, note_id: NOTE },
  removeNoteFromCollection: { collection_id: NOTE, note_id: NOTE },
  searchNotes: { q: 'budget' },
  editTranscription: { note_id: NOTE, if_match: '"tag"', edits: [{ op: 'merge', segment: 0 }] },
  undoTranscriptionEdit: { note_id: NOTE, if_match: '"tag"' },
  findSimilarSegments: { note_id: NOTE, speaker: 'Speaker 2' },
};

const grant: AccessGrant = {
  accountId: randomUUID(),
  clientId: 'test-client',
  scopes: ['notes:read', 'notes:process', 'notes:write', 'notes:delete'],
  grantId: randomUUID(),
};

/** Services that fail the test if a tool touches storage: what a refused call must never do. */
function untouchableServices(): { services: Services; touched: string[] } {
  const touched: string[] = [];
  const port = (name: string) =>
    new Proxy(
      {},
      {
        get(_target, method) {
          touched.push(`${name}.${String(method)}`);
          throw new Error(`${name}.${String(method)} must not be called`);
        },
      },
    );
  const services = {
    accounts: port('accounts'),
    notes: port('notes'),
    blobs: port('blobs'),
    queue: port('queue'),
    search: port('search'),
    languages: { text: 'transcript', speech: ['en'] },
    now: Date.now,
  } as unknown as Services;
  return { services, touched };
}

function contextWith(services: Services): ToolContext {
  return {
    grant,
    services: () => services,
    askServices: () => ({}) as AskServices,
  };
}

/**
 * Operations with no MCP tool: uploads go through the CLI; an agent must not manage API keys, sessions
 * or voice profiles (biometric data).
 */
const REST_ONLY = [
  'submitTranscription',
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
];

describe('the MCP tool registry', () => {
  it('names one tool per REST operationId except submitTranscription, API key, session and voice profile management', () => {
    expect([...MCP_TOOL_NAMES].sort()).toEqual(
      [
        'addNoteToCollection',
        'askWorkspace',
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
        'listCollections',
        'listNotes',
        'removeNoteFromCollection',
        'searchNotes',
        'updateCollection',
        'updateNote',
        'editTranscription',
        'undoTranscriptionEdit',
        'findSimilarSegments',
      ].sort(),
    );
    expect([...MCP_TOOL_NAMES].sort()).toEqual(
      Object.keys(apiRoutes)
        .filter((operationId) => !REST_ONLY.includes(operationId))
        .sort(),
    );
    expect(MCP_TOOL_NAMES).not.toContain('submitTranscription');
  });

  // The MCP spec's ToolAnnotations: destructive means more than additive (replaces, overwrites or
  // removes); idempotent means a repeat with the same arguments has no further effect.
  it('annotates every tool by what it does: read-only, replacing earlier results, overwriting or removing; never open-world', () => {
    const kinds = Object.fromEntries(
      MCP_TOOLS.map((tool) => {
        const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
        expect(openWorldHint, tool.name).toBe(false);
        return [tool.name, { readOnlyHint, destructiveHint, idempotentHint }];
      }),
    );
    const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
    // A new generation replaces the earlier Insights or artifact; a repeat can start another.
    const replaces = { readOnlyHint: false, destructiveHint: true, idempotentHint: false };
    // Overwrites (title, state, speaker names) or removes; the same call again changes nothing more.
    const overwrites = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };
    // Only adds: a collection (a repeat is refused), a note's filing (a repeat changes nothing), a
    // transcript revision (the earlier ones stay; a repeat with the same if_match is refused).
    const adds = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
    const addsOnce = { readOnlyHint: false, destructiveHint: false, idempotentHint: true };
    expect(kinds).toEqual({
      getCurrentAccount: read,
      listCollections: read,
      createCollection: adds,
      addNoteToCollection: addsOnce,
      updateCollection: overwrites,
      deleteCollection: overwrites,
      removeNoteFromCollection: overwrites,
      listNotes: read,
      getNote: read,
      getTranscription: read,
      getInsights: read,
      getNoteArtifact: read,
      getNoteAudio: read,
      askWorkspace: read,
      searchNotes: read,
      generateInsights: replaces,
      generateNoteArtifact: replaces,
      updateNote: overwrites,
      deleteTranscription: overwrites,
      deleteNote: overwrites,
      editTranscription: adds,
      undoTranscriptionEdit: adds,
      findSimilarSegments: read,
    });
  });

  it('requires notes:read to read, notes:process to generate or ask, notes:write to update, notes:delete to delete', () => {
    expect(Object.fromEntries(MCP_TOOLS.map((tool) => [tool.name, [...tool.scopes]]))).toEqual({
      getCurrentAccount: ['notes:read'],
      listNotes: ['notes:read'],
      getNote: ['notes:read'],
      getTranscription: ['notes:read'],
      getInsights: ['notes:read'],
      getNoteArtifact: ['notes:read'],
      getNoteAudio: ['notes:read'],
      askWorkspace: ['notes:read', 'notes:process'],
      searchNotes: ['notes:read'],
      generateInsights: ['notes:process'],
      generateNoteArtifact: ['notes:process'],
      updateNote: ['notes:write'],
      listCollections: ['notes:read'],
      createCollection: ['notes:write'],
      updateCollection: ['notes:write'],
      deleteCollection: ['notes:write'],
      addNoteToCollection: ['notes:write'],
      removeNoteFromCollection: ['notes:write'],
      deleteTranscription: ['notes:delete'],
      deleteNote: ['notes:delete'],
      editTranscription: ['notes:write'],
      undoTranscriptionEdit: ['notes:write'],
      findSimilarSegments: ['notes:read'],
    });
  });

  it('accepts a minimal valid input for every tool and rejects any unknown property', () => {
    for (const tool of MCP_TOOLS) {
      const valid = VALID_INPUT[tool.name];
      expect(valid, tool.name).toBeDefined();
      expect(tool.inputSchema.safeParse(valid).success, tool.name).toBe(true);
      const withExtra = tool.inputSchema.safeParse({ ...valid, unexpected: true });
      expect(withExtra.success, tool.name).toBe(false);
      expect(JSON.stringify(withExtra.error?.issues), tool.name).toContain('unrecognized_keys');
    }
  });

  it('validates like REST: UUID note IDs (lower-cased), bounded questions, known kinds, at least one change', () => {
    const getNote = findTool('getNote')?.inputSchema;
    expect(getNote?.safeParse({ note_id: 'not-a-uuid' }).success).toBe(false);
    expect(getNote?.parse({ note_id: NOTE.toUpperCase() })).toEqual({ note_id: NOTE });

    const ask = findTool('askWorkspace')?.inputSchema;
    expect(ask?.safeParse({ question: '' }).success).toBe(false);
    expect(ask?.safeParse({ question: 'x'.repeat(2001) }).success).toBe(false);
    expect(ask?.safeParse({ question: 'ok', note_ids: ['nope'] }).success).toBe(false);
    expect(ask?.safeParse({ question: 'ok', note_ids: null }).success).toBe(true);

    const artifact = findTool('generateNoteArtifact')?.inputSchema;
    expect(artifact?.safeParse({ note_id: NOTE, artifact_kind: 'essay' }).success).toBe(false);
    expect(artifact?.parse({ note_id: NOTE, artifact_kind: 'podcast' })).toEqual({
      note_id: NOTE,
      artifact_kind: 'podcast',
      language: 'auto',
      regenerate: false,
    });

    const update = findTool('updateNote')?.inputSchema;
    const nothing = update?.safeParse({ note_id: NOTE });
    expect(nothing?.success).toBe(false);
    expect(nothing?.error?.issues[0]?.message).toBe(
      'give at least one of title, state, speaker_names, protected',
    );
    expect(update?.safeParse({ note_id: NOTE, state: 'deleted' }).success).toBe(false);
    expect(update?.safeParse({ note_id: NOTE, speaker_names: { Alice: 'Bob' } }).success).toBe(false);
    expect(update?.safeParse({ note_id: NOTE, protected: 'yes' }).success).toBe(false);
    expect(update?.safeParse({ note_id: NOTE, protected: true }).success).toBe(true);

    const list = findTool('listNotes')?.inputSchema;
    expect(list?.parse({})).toEqual({ limit: 20, state: 'active' });
    expect(list?.safeParse({ limit: 101 }).success).toBe(false);
  });

  it('lists every tool with a strict JSON Schema, its annotations and an agent-facing description', async () => {
    const server = createMcpServer(contextWith(untouchableServices().services));
    const client = new Client({ name: 'unit', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      expect(client.getInstructions()).toMatch(/notes CLI/);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
      for (const tool of tools) {
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties, tool.name).toBe(
          false,
        );
        expect(tool.annotations, tool.name).toMatchObject(findTool(tool.name)?.annotations ?? {});
        expect(tool.description, tool.name).toMatch(/\S{10,}/);
      }
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const name of ['getTranscription', 'getInsights', 'getNoteArtifact', 'generateInsights']) {
        expect(byName.get(name)?.description, name).toMatch(/at least 2 seconds/);
      }
      expect(byName.get('askWorkspace')?.description).toMatch(/supporting note IDs MUST be kept/);
      expect(byName.get('deleteNote')?.inputSchema.required).toEqual(['note_id', 'confirm_note_id']);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('destructive MCP tools', () => {
  for (const name of ['deleteTranscription', 'deleteNote']) {
    it(`${name} requires confirm_note_id`, () => {
      const schema = findTool(name)?.inputSchema;
      const missing = schema?.safeParse({ note_id: NOTE });
      expect(missing?.success).toBe(false);
      expect(JSON.stringify(missing?.error?.issues)).toContain('confirm_note_id');
      expect(schema?.safeParse({ note_id: NOTE, confirm_note_id: 'yes' }).success).toBe(false);
    });

    it(`${name} with a confirm_note_id naming another note is a tool error and touches nothing`, async () => {
      const tool = findTool(name);
      if (!tool) throw new Error(`${name} missing`);
      const { services, touched } = untouchableServices();
      const input = tool.inputSchema.parse({ note_id: NOTE, confirm_note_id: OTHER_NOTE });
      const result = await runTool(tool, contextWith(services), input);
      expect(result.isError).toBe(true);
      expect(result.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/nothing was deleted/),
      });
      expect(touched).toEqual([]);
    });

    it(`${name} with confirm_note_id in another case than note_id is refused and touches nothing`, async () => {
      const tool = findTool(name);
      if (!tool) throw new Error(`${name} missing`);
      const { services, touched } = untouchableServices();
      for (const [noteId, confirmNoteId] of [
        [NOTE, NOTE.toUpperCase()],
        [NOTE.toUpperCase(), NOTE],
      ]) {
        const input = tool.inputSchema.parse({ note_id: noteId, confirm_note_id: confirmNoteId });
        const result = await runTool(tool, contextWith(services), input);
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toMatchObject({
          status_code: 400,
          detail: expect.stringMatching(/does not repeat note_id .* exactly: nothing was deleted/),
        });
      }
      expect(touched).toEqual([]);
    });

    it(`${name} with confirm_note_id repeating note_id exactly reaches the domain for that note, lower-cased`, async () => {
      const tool = findTool(name);
      if (!tool) throw new Error(`${name} missing`);
      const asked: string[] = [];
      const services = {
        ...untouchableServices().services,
        notes: {
          // The note alone, or with its jobs (deleteNote and deleteTranscription read them together).
          getNote: async (accountId: string, noteId: string) => {
            asked.push(`${accountId}/${noteId}`);
            return null;
          },
          getNoteWithItems: async (accountId: string, noteId: string) => {
            asked.push(`${accountId}/${noteId}`);
            return null;
          },
        },
      } as unknown as Services;
      for (const id of [NOTE, NOTE.toUpperCase()]) {
        const input = tool.inputSchema.parse({ note_id: id, confirm_note_id: id });
        const result = await runTool(tool, contextWith(services), input);
        // The note does not exist in this fake: the same 404 as REST, as a tool error.
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toEqual({ status_code: 404, detail: `No note with ID ${NOTE}` });
      }
      expect(asked).toEqual([`${grant.accountId}/${NOTE}`, `${grant.accountId}/${NOTE}`]);
    });
  }
});
