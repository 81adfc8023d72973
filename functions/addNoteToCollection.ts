import { addNoteToCollection } from '#src/domain/collections.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { addNoteToCollectionBody, collectionParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'addNoteToCollection',
  { params: collectionParams, body: addNoteToCollectionBody },
  async ({ caller, params, body, services }) =>
    jsonResponse(
      200,
      await addNoteToCollection(services, caller.account.account_id, params.collection_id, body.note_id),
    ),
);
