import { findSimilarSegments } from '#src/domain/similar-segments.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { findSimilarSegmentsBody, noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'findSimilarSegments',
  { params: noteParams, body: findSimilarSegmentsBody },
  async ({ caller, params, body, services }) =>
    jsonResponse(200, await findSimilarSegments(services, caller.account.account_id, params.note_id, body)),
);
