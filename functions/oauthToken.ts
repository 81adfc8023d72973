import { oauthHandler, oauthJson, readForm } from '#src/oauth/http.ts';
import { tokenRequest } from '#src/oauth/tokens.ts';

export const handler = oauthHandler('oauthToken', 'json', async (event, deps) =>
  oauthJson(200, await tokenRequest(deps, readForm(event))),
);
