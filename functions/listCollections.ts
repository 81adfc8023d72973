import { listCollections } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('listCollections', {}, async ({ caller, services }) =>
  jsonResponse(200, await listCollections(services, caller.account.account_id)),
);
