import { renameVoiceProfile } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { updateVoiceProfileBody, voiceProfileParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'updateVoiceProfile',
  { params: voiceProfileParams, body: updateVoiceProfileBody },
  async ({ caller, params, body, services }) =>
    jsonResponse(
      200,
      await renameVoiceProfile(services, caller.account.account_id, params.profile_id, body.name),
    ),
);
