import { completeUpstreamSignIn } from '#src/oauth/authorize.ts';
import { browserOf, oauthHandler, queryOf, webResponse } from '#src/oauth/http.ts';

export const handler = oauthHandler('oauthCallback', 'page', async (event, deps) =>
  webResponse(
    await completeUpstreamSignIn(deps, queryOf(event), event.rawQueryString ?? '', browserOf(event)),
    'GET',
  ),
);
