import { createCollection } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { createCollectionBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'createCollection',
  { body: createCollectionBody },
  async ({ caller, body, services }) =>
    jsonResponse(201, await createCollection(services, caller.account.account_id, body)),
);
