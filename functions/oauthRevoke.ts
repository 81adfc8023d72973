import { oauthHandler, oauthJson, readForm } from '#src/oauth/http.ts';
import { revokeToken } from '#src/oauth/tokens.ts';

export const handler = oauthHandler('oauthRevoke', 'json', async (event, deps) => {
  await revokeToken(deps, readForm(event));
  return oauthJson(200, {});
});
