import { endOtherSessions } from '#src/domain/sessions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('endOtherSessions', {}, async ({ caller, services }) =>
  jsonResponse(200, await endOtherSessions(services.sessions, caller)),
);
