import { deleteCollection } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { collectionParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'deleteCollection',
  { params: collectionParams },
  async ({ caller, params, services }) => {
    await deleteCollection(services, caller.account.account_id, params.collection_id);
    return emptyResponse();
  },
);
