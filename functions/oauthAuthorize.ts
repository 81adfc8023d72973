import { beginAuthorization, submitAuthorizationForm } from '#src/oauth/authorize.ts';
import { oauthHandler, queryOf, readForm, webResponse } from '#src/oauth/http.ts';

// GET: the authorization request (then the sign-in page or the upstream provider);
// POST: the sign-in and consent forms.
export const handler = oauthHandler('oauthAuthorize', 'page', async (event, deps) => {
  const method = event.requestContext.http.method;
  const result =
    method === 'POST'
      ? await submitAuthorizationForm(deps, readForm(event))
      : await beginAuthorization(deps, queryOf(event));
  return webResponse(result, method);
});
