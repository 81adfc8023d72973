import { undoTranscriptionEdit } from '#src/domain/transcript-revisions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { ifMatchOf, withTag } from '#src/http/conditional-requests.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams, undoTranscriptionEditBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'undoTranscriptionEdit',
  { params: noteParams, body: undoTranscriptionEditBody, bodyOptional: true },
  async ({ caller, params, body, services, event }) =>
    withTag(
      jsonResponse(
        200,
        await undoTranscriptionEdit(
          services,
          caller.account.account_id,
          params.note_id,
          body?.to ?? 'previous',
          ifMatchOf(event),
        ),
      ),
    ),
);
