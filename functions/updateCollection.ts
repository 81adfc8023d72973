import { updateCollection } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { collectionParams, updateCollectionBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'updateCollection',
  { params: collectionParams, body: updateCollectionBody },
  async ({ caller, params, body, services }) =>
    jsonResponse(
      200,
      await updateCollection(services, caller.account.account_id, params.collection_id, body),
    ),
);
