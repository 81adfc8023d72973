import { listVoiceProfiles } from '#src/domain/voice-profiles.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('listVoiceProfiles', {}, async ({ caller, services }) =>
  jsonResponse(200, await listVoiceProfiles(services, caller.account.account_id)),
);
