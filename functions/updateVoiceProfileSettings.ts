import { setVoiceProfilesEnabled } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { voiceProfileSettingsBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'updateVoiceProfileSettings',
  { body: voiceProfileSettingsBody },
  async ({ caller, body, services }) =>
    jsonResponse(200, await setVoiceProfilesEnabled(services, caller.account.account_id, body.enabled)),
);
