import { type CacheHint, McpServer } from '@modelcontextprotocol/server';
import { logger } from '../logging.ts';
import { errorOf, type ToolResult } from './results.ts';
import { MCP_TOOLS, type McpTool, type ToolContext } from './tools.ts';

export const SERVER_INSTRUCTIONS = `Notes service: audio recordings turned into notes (transcripts, Insights, artifacts) and grounded answers across the account's processed notes (askWorkspace).

- Start with getCurrentAccount (which scopes were granted) and listNotes (note IDs and titles). Keep note IDs outside the conversation where you can: every note tool takes note_id.
- Asynchronous work: generateInsights, generateNoteArtifact, getTranscription, getInsights and getNoteArtifact can return a job status (status queued or processing). A job status is never a result. Poll the matching get tool (getTranscription, getInsights, getNoteArtifact) at intervals of at least 2 seconds, with a bounded overall deadline, until it returns the result or an error; a 409 with status 'failed' is terminal.
- askWorkspace answers only from processed notes; keep the supporting note IDs it returns in the final answer shown to the user.
- deleteTranscription and deleteNote are destructive: get explicit confirmation from the user for that exact note immediately before calling (an earlier general request is not approval) and repeat the note ID in confirm_note_id. To remove a note reversibly, use updateNote with state 'trashed'.
- updateNote: pass the etag from your last getNote or updateNote result as if_match, so that a change someone else made meanwhile is not overwritten; an Error 412 means the note changed and nothing was changed: read it again, reapply, retry with the new etag.
- Uploading audio is not available through MCP on purpose: local audio files are transcribed with the notes CLI (notes transcribe <file> --title <title> --wait), after which the note appears here.
- Scopes: notes:read for the read tools, notes:process for askWorkspace, generateInsights and generateNoteArtifact, notes:write for updateNote, notes:delete for the deletions. A tool needing a scope that was not granted answers HTTP 403 insufficient_scope; authorize again with the scope it names.`;

/**
 * How long a 2026-07-28 client may keep `tools/list` and `server/discover`: the list is the same for
 * every account and grant (a tool the grant lacks a scope for is listed and answers 403), and it
 * changes only with a deployment. An hour bounds how long a client keeps a list from before one.
 */
export const LIST_CACHE_HINT: CacheHint = { ttlMs: 60 * 60 * 1000, cacheScope: 'public' };

/** The revision a request is served in: 2026-07-28 (`modern`) or the 2025 revisions (`legacy`). */
export type ProtocolEra = 'legacy' | 'modern';

/**
 * A server for one request, of either revision (the SDK gives each its wire format): the tools act
 * for the grant of that request's access token.
 */
export function createMcpServer(context: ToolContext, era: ProtocolEra = 'legacy'): McpServer {
  const server = new McpServer(
    { name: 'notes', title: 'Notes service', version: '1.0.0' },
    {
      instructions: SERVER_INSTRUCTIONS,
      cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
    },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (input) => runTool(tool, context, input, era),
    );
  }
  // registerTool advertises tools.listChanged, but the list never changes while a deployment runs
  // and this server opens no stream to announce a change on: do not promise it.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/** Runs a tool; a domain or provider error becomes an `isError` result with the REST status and detail. */
export async function runTool(
  tool: McpTool,
  context: ToolContext,
  input: unknown,
  era: ProtocolEra = 'legacy',
): Promise<ToolResult> {
  const started = Date.now();
  let result: ToolResult;
  try {
    result = await tool.run(context, input);
  } catch (error) {
    result = errorOf(error);
  }
  logger.info('mcp tool', {
    tool: tool.name,
    clientId: context.grant.clientId,
    era,
    status: result.isError
      ? (result.structuredContent as { status_code?: number } | undefined)?.status_code
      : 'ok',
    ms: Date.now() - started,
  });
  return result;
}
