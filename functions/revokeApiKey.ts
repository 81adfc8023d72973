import { callerScopes, revokeAccountApiKey } from '#src/domain/accounts.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { emptyResponse } from '#src/http/response.ts';
import { apiKeyParams } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'revokeApiKey',
  { params: apiKeyParams },
  async ({ caller, params, services }) => {
    await revokeAccountApiKey(
      services.accounts,
      caller.account.account_id,
      params.key_id,
      callerScopes(caller),
    );
    return emptyResponse();
  },
);
