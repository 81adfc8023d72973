import { oauthHandler, oauthJson, publicJson, requestPath } from '#src/oauth/http.ts';
import { authorizationServerMetadata, jwks, protectedResourceMetadata } from '#src/oauth/metadata.ts';

export const handler = oauthHandler('oauthMetadata', 'json', async (event, { settings, signingKey }) => {
  switch (requestPath(event)) {
    case '/.well-known/oauth-protected-resource':
    case '/.well-known/oauth-protected-resource/mcp':
      return publicJson(protectedResourceMetadata(settings));
    case '/.well-known/oauth-protected-resource/v1':
      return publicJson(protectedResourceMetadata(settings, 'v1'));
    case '/.well-known/oauth-authorization-server':
      return publicJson(authorizationServerMetadata(settings));
    case '/oauth/jwks':
      return publicJson(jwks(signingKey));
    default:
      return oauthJson(404, { error: 'not_found', error_description: 'No such metadata document' });
  }
});
