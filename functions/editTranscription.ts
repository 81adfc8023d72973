import { editTranscription } from '#src/domain/transcript-revisions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { ifMatchOf } from '#src/http/conditional-requests.ts';
import { editTranscriptionBody, noteParams } from '#src/http/schemas.ts';
import { transcriptResponse } from '#src/http/transcript-response.ts';

export const handler = apiHandler(
  'editTranscription',
  { params: noteParams, body: editTranscriptionBody },
  async ({ caller, params, body, services, event }) =>
    transcriptResponse(
      await editTranscription(
        services,
        caller.account.account_id,
        params.note_id,
        body.edits,
        ifMatchOf(event),
      ),
    ),
);
