import { getInsights } from '#src/domain/insights-jobs.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getInsights',
  { params: noteParams },
  async ({ caller, params, services }) => {
    const result = await getInsights(services, caller.account.account_id, params.note_id);
    return result.kind === 'ready' ? jsonResponse(200, result.insights) : jsonResponse(202, result.job);
  },
);
