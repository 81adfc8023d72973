import { listApiKeys } from '#src/domain/accounts.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('listApiKeys', {}, async ({ caller, services }) =>
  jsonResponse(200, { keys: await listApiKeys(services.accounts, caller.account.account_id) }),
);
