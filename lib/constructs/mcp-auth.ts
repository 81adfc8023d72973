import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
  UserPoolDomain,
  UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { mcpScopes } from '../../src/domain/scopes.ts';
import { acknowledge } from '../nag.ts';

export interface McpAuthProps {
  stage: string;
  deletionProtection: boolean;
  /** The MCP resource URL: access tokens carry it as `aud`, and it is the resource server identifier. */
  resourceUrl: string;
  /** The REST API as a protected resource (`<api>/v1`): the `aud` of the web app's access tokens. */
  restResourceUrl: string;
  /** Managed-login domain prefix: unique per region across all of AWS. */
  domainPrefix: string;
  /** Where Cognito returns users to the service's authorization server (`<api>/oauth/callback`). */
  callbackUrl: string;
  /** Where Cognito's `/logout` may send users once their sign-in session ends (the public docs). */
  signOutUrl: string;
}

/**
 * Sign-in for MCP clients: a Cognito user pool with managed login (version 2, styled with Cognito's
 * own default branding), a resource server for the MCP resource URL, and the app client the
 * service's OAuth authorization server signs users in through (src/oauth).
 */
export class McpAuth extends Construct {
  readonly userPool: UserPool;
  readonly domain: UserPoolDomain;
  readonly resourceServer: UserPoolResourceServer;
  /** The REST API's resource server: same scopes, its own identifier (RFC 8707 resource). */
  readonly restResourceServer: UserPoolResourceServer;
  /** The service's own authorization server signs users in through this client (OIDC, code + PKCE). */
  readonly signInClient: UserPoolClient;
  /** Managed login v2 shows "Login pages unavailable" for a client without a branding style. */
  readonly signInBranding: CfnManagedLoginBranding;

  constructor(scope: Construct, id: string, props: McpAuthProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `notes-${props.stage}-mcp`,
      // Operators invite their users (admin-create-user); nobody signs themselves up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Essentials: managed login (version 2) without the per-user price of Plus.
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: props.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.userPool,
      'COG2',
      'MFA is optional (TOTP offered to every user); requiring it is a per-deployment policy: set Mfa.REQUIRED here',
    );
    acknowledge(
      this.userPool,
      'COG8',
      'Essentials plan: threat protection needs Plus (priced per user); sign-up is closed and passwords are 12+ mixed characters',
    );

    this.domain = new UserPoolDomain(this, 'Domain', {
      userPool: this.userPool,
      cognitoDomain: { domainPrefix: props.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    const scopes = () =>
      Object.entries(mcpScopes).map(
        ([scopeName, scopeDescription]) => new ResourceServerScope({ scopeName, scopeDescription }),
      );
    this.resourceServer = new UserPoolResourceServer(this, 'McpResourceServer', {
      userPool: this.userPool,
      identifier: props.resourceUrl,
      userPoolResourceServerName: `notes-${props.stage}-mcp`,
      scopes: scopes(),
    });
    // The tokens are the service's own (src/oauth), for either resource; Cognito is the upstream
    // identity only. The resource servers record both resources and their scopes in the pool.
    this.restResourceServer = new UserPoolResourceServer(this, 'RestResourceServer', {
      userPool: this.userPool,
      identifier: props.restResourceUrl,
      userPoolResourceServerName: `notes-${props.stage}-rest`,
      scopes: scopes(),
    });

    // A public client (no secret to keep in a function's environment): PKCE protects its codes.
    this.signInClient = new UserPoolClient(this, 'SignInClient', {
      userPool: this.userPool,
      userPoolClientName: `notes-${props.stage}-oauth-sign-in`,
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        // The e-mail address names the account the sign-in creates (src/oauth).
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [props.callbackUrl],
        logoutUrls: [props.signOutUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
    });

    this.signInBranding = new CfnManagedLoginBranding(this, 'SignInBranding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.signInClient.userPoolClientId,
      // Cognito's default style; a custom one (logo, colours) is `settings` + `assets` instead.
      useCognitoProvidedValues: true,
    });
  }
}
