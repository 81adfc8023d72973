import type { CallToolResult } from '@modelcontextprotocol/server';
import type { JobStatusView } from '../domain/job.ts';
import { toErrorResponse } from '../http/error-mapper.ts';

/**
 * Tool results. `structuredContent` is the JSON body REST answers with (and, for a note or a
 * transcript, its `etag`), and a text block carries the same JSON for clients that read text only.
 * Errors use the REST error mapping, so a tool reports the same status and detail as the REST
 * operation, and never a stack trace.
 */
export type ToolResult = CallToolResult;

/** A completed result (REST `200`). */
export function resultOf(body: object, notes: string[] = []): ToolResult {
  return {
    content: [
      { type: 'text', text: JSON.stringify(body) },
      ...notes.map((text) => ({ type: 'text' as const, text })),
    ],
    structuredContent: body as Record<string, unknown>,
  };
}

/**
 * A completed result that can be changed conditionally: the REST body with its entity tag (REST's
 * `ETag` header) as `etag`, so that a client that reads only structuredContent can pass it as
 * `if_match` (src/mcp/output-schemas.ts, EditableResult).
 */
export function editableResultOf(body: object, etag: string, notes: string[] = []): ToolResult {
  return resultOf({ ...body, etag }, notes);
}

/** Plain text (a transcript export), REST `200` with a text body. */
export function textOf(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * REST `202`: the job status object, which is not a result. The text says so first, and names the tool
 * to poll and its arguments.
 */
export function notYet(
  job: JobStatusView,
  pollTool: string,
  pollArguments: Record<string, string>,
): ToolResult {
  const notice =
    `NOT A RESULT YET: the ${job.kind} job of note ${job.note_id} is ${job.status} (stage: ${job.stage}). ` +
    `Keep the note ID. Poll ${pollTool} with ${JSON.stringify(pollArguments)} no sooner than 2 seconds ` +
    'from now, and again at intervals of at least 2 seconds (with a bounded overall deadline), until it ' +
    'returns the result or an error. Do not present this status as the outcome.';
  return {
    content: [
      { type: 'text', text: notice },
      { type: 'text', text: JSON.stringify(job) },
    ],
    structuredContent: job as unknown as Record<string, unknown>,
  };
}

/** An error the tool reports to the model (`isError`), with the status and body REST would answer. */
export function errorOf(error: unknown): ToolResult {
  const response = toErrorResponse(error);
  const statusCode = response.statusCode ?? 500;
  const body = JSON.parse(response.body ?? '{}') as { detail?: string; status?: string };
  return failure(statusCode, body);
}

/** A tool error with a REST-like status and `{ detail }` body (e.g. a failed confirmation). */
export function failure(statusCode: number, body: { detail?: string; status?: string }): ToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `Error ${statusCode}: ${body.detail ?? 'request failed'}${hintFor(statusCode, body)}`,
      },
    ],
    structuredContent: { status_code: statusCode, ...body },
  };
}

function hintFor(statusCode: number, body: { status?: string }): string {
  if (body.status === 'failed') return ' This is terminal: stop polling; start the job again to retry.';
  if (statusCode === 429) return ' Back off (exponentially, at least a few seconds) and retry.';
  if (statusCode >= 500) return ' Retry later.';
  return '';
}
