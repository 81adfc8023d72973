import { requestInsights } from '#src/domain/insights-jobs.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { generateInsightsBody, noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'generateInsights',
  { params: noteParams, body: generateInsightsBody, bodyOptional: true },
  async ({ caller, params, services }) =>
    jsonResponse(202, await requestInsights(services, caller.account.account_id, params.note_id)),
);
