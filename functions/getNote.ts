import { getNote } from '#src/domain/notes.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler('getNote', { params: noteParams }, async ({ caller, params, services }) =>
  jsonResponse(200, await getNote(services, caller.account.account_id, params.note_id)),
);
