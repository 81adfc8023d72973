import { removeNoteFromCollection } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { collectionNoteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'removeNoteFromCollection',
  { params: collectionNoteParams },
  async ({ caller, params, services }) =>
    jsonResponse(
      200,
      await removeNoteFromCollection(
        services,
        caller.account.account_id,
        params.collection_id,
        params.note_id,
      ),
    ),
);
