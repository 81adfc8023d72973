import { askWorkspace } from '#src/domain/ask.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { askBody } from '#src/http/schemas.ts';
import { getAskServices } from '#src/wiring/ask-services.ts';

export const handler = apiHandler('askWorkspace', { body: askBody }, async ({ caller, body, services }) =>
  jsonResponse(
    200,
    await askWorkspace({ ...services, ...getAskServices() }, caller.account.account_id, body),
  ),
);
