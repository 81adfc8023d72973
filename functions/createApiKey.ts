import { issueApiKey } from '#src/domain/accounts.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { createApiKeyBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'createApiKey',
  { body: createApiKeyBody },
  async ({ caller, body, services }) => {
    const issued = await issueApiKey(services.accounts, caller.account, Date.now(), body.name);
    // The secret is in this response only; afterwards just its prefix and ID are readable.
    return jsonResponse(
      201,
      {
        key_id: issued.key_id,
        name: issued.name,
        prefix: issued.prefix,
        created_at: issued.created_at,
        revoked_at: null,
        api_key: issued.api_key,
      },
      { 'Cache-Control': 'no-store' },
    );
  },
);
