import { noteEntityTag } from '#src/domain/views.ts';
import { reviewVoiceMatch } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { withTag } from '#src/http/conditional-requests.ts';
import { jsonResponse } from '#src/http/response.ts';
import { reviewVoiceMatchBody, voiceMatchParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'reviewVoiceMatch',
  { params: voiceMatchParams, body: reviewVoiceMatchBody },
  async ({ caller, params, body, services }) => {
    const note = await reviewVoiceMatch(
      services,
      caller.account.account_id,
      params.note_id,
      params.speaker,
      body.decision,
    );
    return withTag(jsonResponse(200, note), noteEntityTag(note));
  },
);
