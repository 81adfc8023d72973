import { revokeAccountApiKey } from '#src/domain/accounts.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { apiKeyParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'revokeApiKey',
  { params: apiKeyParams },
  async ({ caller, params, services }) => {
    await revokeAccountApiKey(services.accounts, services.sessions, caller, params.key_id);
    return emptyResponse();
  },
);
