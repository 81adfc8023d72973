import { endSession } from '#src/domain/sessions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { sessionParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'endSession',
  { params: sessionParams },
  async ({ caller, params, services }) => {
    await endSession(services.sessions, caller, params.session_id);
    return emptyResponse();
  },
);
