import { undoTranscriptionEdit } from '#src/domain/transcript-revisions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { ifMatchOf } from '#src/http/conditional-requests.ts';
import { noteParams, undoTranscriptionEditBody } from '#src/http/schemas.ts';
import { transcriptResponse } from '#src/http/transcript-response.ts';

export const handler = apiHandler(
  'undoTranscriptionEdit',
  { params: noteParams, body: undoTranscriptionEditBody, bodyOptional: true },
  async ({ caller, params, body, services, event }) =>
    transcriptResponse(
      await undoTranscriptionEdit(
        services,
        caller.account.account_id,
        params.note_id,
        body?.to ?? 'previous',
        ifMatchOf(event),
      ),
    ),
);
