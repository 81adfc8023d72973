import { createVoiceProfile } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { createVoiceProfileBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'createVoiceProfile',
  { body: createVoiceProfileBody },
  async ({ caller, body, services }) => {
    const { profile, created } = await createVoiceProfile(services, caller.account.account_id, body);
    return jsonResponse(created ? 201 : 200, profile);
  },
);
