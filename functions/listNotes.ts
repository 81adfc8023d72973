import { listNotes } from '#src/domain/notes.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { listNotesQuery } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'listNotes',
  { query: listNotesQuery },
  async ({ caller, query, services }) =>
    jsonResponse(200, await listNotes(services, caller.account.account_id, query)),
);
