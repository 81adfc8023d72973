import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the little used here is typed below.
import ProviderModule from 'oidc-provider';

/**
 * Cognito's managed login, played by a real OpenID provider (`oidc-provider`): the service is its
 * client; the login interaction is completed for whichever user is "typing" (`nextUser`), or
 * cancelled. ID tokens carry the user's e-mail, as Cognito's do with the `email` scope.
 */
interface Interaction {
  prompt: { name: string };
  params: { client_id: string; scope?: string };
  session?: { accountId?: string };
}
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (init: {
    accountId: string;
    clientId: string;
  }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}
const Provider = ProviderModule as new (
  issuer: string,
  configuration: Record<string, unknown>,
) => OidcProvider;

export interface UpstreamClient {
  id: string;
  /** A confidential client authenticates with it (client_secret_post); without, a public client (PKCE). */
  secret?: string;
}

export interface OidcProviderStandIn {
  /** The issuer: what NOTES_OIDC_ISSUER names. */
  url: string;
  /** Who signs in at the next login page; `cancel` plays a user who closes it. */
  nextUser: string | 'cancel';
  /** Starts answering, with `redirectUri` (the service's /oauth/callback) as the client's only one. */
  serve(client: UpstreamClient, redirectUri: string): void;
  close(): Promise<void>;
}

/**
 * Listens first (the service's configuration needs the issuer) and serves once `serve` is called
 * (the client's redirect URI needs the service's address).
 */
export async function startOidcProviderStandIn(): Promise<OidcProviderStandIn> {
  const server: Server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const standIn: OidcProviderStandIn = {
    url,
    nextUser: 'alice',
    serve: (client, redirectUri) => serveProvider(server, standIn, client, redirectUri),
    close: async () => {
      await new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
    },
  };
  return standIn;
}

function serveProvider(
  server: Server,
  standIn: OidcProviderStandIn,
  client: UpstreamClient,
  redirectUri: string,
): void {
  const provider = new Provider(standIn.url, {
    clients: [
      {
        client_id: client.id,
        ...(client.secret
          ? { client_secret: client.secret, token_endpoint_auth_method: 'client_secret_post' }
          : { token_endpoint_auth_method: 'none' }),
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@example.com` }),
    }),
    // Like Cognito's ID tokens, which carry the user's email.
    claims: { openid: ['sub', 'email'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['cookie-signing-key-for-tests'] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    // Consent at the provider is implied for this first-party client (as with Cognito's app client).
    loadExistingGrant: async (ctx: {
      oidc: { client: { clientId: string }; session: { accountId: string }; provider: OidcProvider };
    }) => {
      const grant = new ctx.oidc.provider.Grant({
        accountId: ctx.oidc.session.accountId,
        clientId: ctx.oidc.client.clientId,
      });
      grant.addOIDCScope('openid');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    // The provider's login page, played by the test: sign the next user in (or cancel).
    (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.params.client_id !== client.id)
        throw new Error(`unexpected client ${details.params.client_id}`);
      const result =
        standIn.nextUser === 'cancel'
          ? { error: 'access_denied', error_description: 'The user closed the sign-in' }
          : { login: { accountId: standIn.nextUser } };
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
}
