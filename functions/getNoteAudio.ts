import { noteAudioLink } from '#src/domain/note-audio.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { noteParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'getNoteAudio',
  { params: noteParams },
  async ({ caller, params, services }) =>
    // The link is a credential for a few minutes: not for caches.
    jsonResponse(200, await noteAudioLink(services, caller.account.account_id, params.note_id), {
      'Cache-Control': 'no-store',
    }),
);
