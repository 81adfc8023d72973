import { getNote } from '#src/domain/notes.ts';
import { noteEntityTag } from '#src/domain/views.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { withEntityTag } from '#src/http/conditional-requests.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getNote',
  { params: noteParams },
  async ({ caller, params, services, event }) => {
    const note = await getNote(services, caller.account.account_id, params.note_id);
    return withEntityTag(event, jsonResponse(200, note), noteEntityTag(note));
  },
);
