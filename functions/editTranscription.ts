import { editTranscription } from '#src/domain/transcript-revisions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { ifMatchOf, withTag } from '#src/http/conditional-requests.ts';
import { jsonResponse } from '#src/http/response.ts';
import { editTranscriptionBody, noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'editTranscription',
  { params: noteParams, body: editTranscriptionBody },
  async ({ caller, params, body, services, event }) =>
    withTag(
      jsonResponse(
        200,
        await editTranscription(
          services,
          caller.account.account_id,
          params.note_id,
          body.edits,
          ifMatchOf(event),
        ),
      ),
    ),
);
