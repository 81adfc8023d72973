import { beginAuthorization, submitAuthorizationForm } from '#src/oauth/authorize.ts';
import { browserOf, oauthHandler, queryOf, readForm, webResponse } from '#src/oauth/http.ts';

// GET: the authorization request (then the sign-in page, the provider, or for a browser signed in
// already the consent page); POST: the sign-in and consent forms.
export const handler = oauthHandler('oauthAuthorize', 'page', async (event, deps) => {
  const method = event.requestContext.http.method;
  const result =
    method === 'POST'
      ? await submitAuthorizationForm(deps, readForm(event), browserOf(event))
      : await beginAuthorization(deps, queryOf(event), browserOf(event));
  return webResponse(result, method);
});
