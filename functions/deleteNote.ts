import { deleteNote } from '#src/domain/notes.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'deleteNote',
  { params: noteParams },
  async ({ caller, params, services }) => {
    await deleteNote(services, caller.account.account_id, params.note_id);
    return emptyResponse();
  },
);
