import { listSessions } from '#src/domain/sessions.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('listSessions', {}, async ({ caller, services }) =>
  jsonResponse(200, { sessions: await listSessions(services.sessions, services.accounts, caller) }),
);
