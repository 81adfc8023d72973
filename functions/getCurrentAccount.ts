import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';

export const handler = apiHandler('getCurrentAccount', {}, async ({ caller }) => {
  const { account, api_key, access_token } = caller;
  return jsonResponse(200, {
    account_id: account.account_id,
    name: account.name,
    created_at: account.created_at,
    api_key: api_key && { key_id: api_key.key_id, created_at: api_key.created_at, scopes: api_key.scopes },
    access_token: access_token && { client_id: access_token.client_id, scopes: access_token.scopes },
  });
});
