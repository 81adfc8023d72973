import { registerClient } from '#src/oauth/clients.ts';
import { oauthHandler, oauthJson, readJson } from '#src/oauth/http.ts';

export const handler = oauthHandler('oauthRegister', 'json', async (event, { store, now, settings }) =>
  oauthJson(
    201,
    await registerClient(store, readJson(event), now(), settings.issuer, event.requestContext.http.sourceIp),
  ),
);
