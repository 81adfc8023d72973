import { searchNotes } from '#src/domain/search.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { searchNotesQuery } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'searchNotes',
  { query: searchNotesQuery },
  async ({ caller, query, services }) =>
    jsonResponse(200, await searchNotes(services, caller.account.account_id, query)),
);
