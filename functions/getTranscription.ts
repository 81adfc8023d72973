import { getTranscription } from '#src/domain/transcription.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getTranscription',
  { params: noteParams },
  async ({ caller, params, services }) => {
    const result = await getTranscription(services, caller.account.account_id, params.note_id);
    return result.kind === 'ready' ? jsonResponse(200, result.transcription) : jsonResponse(202, result.job);
  },
);
