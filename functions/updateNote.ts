import { updateNote } from '#src/domain/notes.ts';
import { noteEntityTag } from '#src/domain/views.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { ifMatchOf, withTag } from '#src/http/conditional-requests.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams, updateNoteBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'updateNote',
  { params: noteParams, body: updateNoteBody },
  async ({ caller, params, body, services, event }) => {
    const note = await updateNote(
      services,
      caller.account.account_id,
      params.note_id,
      body,
      ifMatchOf(event),
    );
    return withTag(jsonResponse(200, note), noteEntityTag(note));
  },
);
