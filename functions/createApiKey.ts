import { callerScopes, issueApiKey } from '#src/domain/accounts.ts';
import { ForbiddenError } from '#src/domain/errors.ts';
import { apiHandler } from '#src/http/api-handler.ts';
import { jsonResponse } from '#src/http/response.ts';
import { createApiKeyBody } from '#src/http/schemas.ts';

export const handler = apiHandler(
  'createApiKey',
  { body: createApiKeyBody },
  async ({ caller, body, services }) => {
    // A key never does more than the credential that made it: it gets that credential's scopes,
    // or fewer when asked (docs/api-decisions.md, "API keys carry scopes").
    const held = callerScopes(caller);
    const beyond = (body.scopes ?? []).filter((scope) => !held.includes(scope));
    if (beyond.length > 0) {
      throw new ForbiddenError(
        `A new key cannot hold ${beyond.join(' and ')}: the credential making it does not. Ask for the permission first, or leave it out of scopes.`,
      );
    }
    const scopes = body.scopes ?? held;
    const issued = await issueApiKey(services.accounts, caller.account, Date.now(), body.name, scopes);
    // The secret is in this response only; afterwards just its prefix and ID are readable.
    return jsonResponse(
      201,
      {
        key_id: issued.key_id,
        name: issued.name,
        prefix: issued.prefix,
        created_at: issued.created_at,
        revoked_at: null,
        scopes: issued.scopes,
        api_key: issued.api_key,
      },
      { 'Cache-Control': 'no-store' },
    );
  },
);
