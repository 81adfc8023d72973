import { deleteVoiceProfile } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { voiceProfileParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'deleteVoiceProfile',
  { params: voiceProfileParams },
  async ({ caller, params, services }) => {
    await deleteVoiceProfile(services, caller.account.account_id, params.profile_id);
    return emptyResponse();
  },
);
