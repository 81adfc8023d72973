import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { DocsSite } from '../../lib/constructs/docs-site.ts';
import { repositoryRoot } from '../../lib/paths.ts';
import { PUBLISHED_DOC_CONTENT_TYPES } from '../../src/published-docs.ts';
import { apiRoutes } from '../../src/routes.ts';
import {
  asList,
  buildNotesApp,
  defined,
  functionsByName,
  getAttLogicalId,
  resourcesOfType,
  STAGE,
  statementsOfFunction,
} from './support.ts';

const built = buildNotesApp();
const { template, stack } = built;
const buckets = resourcesOfType(template, 'AWS::S3::Bucket');
const bucketPolicies = Object.values(resourcesOfType(template, 'AWS::S3::BucketPolicy'));
const dataBucketId = stack.getLogicalId(stack.storage.dataBucket.node.defaultChild as never);

describe('the buckets', () => {
  it.each(Object.keys(buckets))('%s blocks all public access and encrypts at rest', (id) => {
    expect(buckets[id]?.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(buckets[id]?.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });

  it.each(Object.keys(buckets))('%s denies every request made without TLS', (id) => {
    const policy = bucketPolicies.find((p) => (p.Properties.Bucket as { Ref: string }).Ref === id);
    const statements = (
      defined(policy, `the policy of ${id}`).Properties.PolicyDocument as {
        Statement: Array<Record<string, unknown>>;
      }
    ).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('the data bucket aborts incomplete uploads after a day, keeps no versions, and logs access', () => {
    const data = buckets[dataBucketId]?.Properties;
    expect(data?.VersioningConfiguration).toBeUndefined();
    expect(data?.LifecycleConfiguration).toEqual({
      Rules: [{ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }],
    });
    expect(data?.LoggingConfiguration).toMatchObject({ LogFilePrefix: 'data-bucket/' });
  });

  it('the data bucket lets browsers PUT recordings cross-origin, and nothing else', () => {
    expect(buckets[dataBucketId]?.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: ['*'],
          AllowedHeaders: ['*'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3600,
        },
      ],
    });
  });

  it('upload CORS origins come from context', () => {
    const { template: custom } = buildNotesApp({ uploadCorsOrigins: 'https://app.example.com' });
    custom.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: { CorsRules: [Match.objectLike({ AllowedOrigins: ['https://app.example.com'] })] },
    });
  });

  it('the data bucket and the table outlive the stack', () => {
    template.hasResource('AWS::S3::Bucket', {
      Properties: { CorsConfiguration: Match.anyValue() },
      DeletionPolicy: 'Retain',
    });
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('the table', () => {
  it('is on-demand, with point-in-time recovery, encryption, TTL and deletion protection', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expires_at_s', Enabled: true },
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
  });

  it('has the keys and index of src/adapters/dynamodb/table-definition.ts', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        Match.objectLike({ IndexName: 'gsi1', Projection: { ProjectionType: 'ALL' } }),
      ],
    });
  });

  it('takes deletion protection from context', () => {
    const { template: unprotected } = buildNotesApp({ deletionProtection: 'false' });
    unprotected.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });
});

describe('every function', () => {
  const functions = [...functionsByName(template)].filter(([name]) => name.startsWith(`notes-${STAGE}-`));
  const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');

  it.each(functions)('%s runs Node.js 22 on arm64 with active tracing and source maps', (_name, fn) => {
    expect(fn.resource.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Environment: {
        Variables: expect.objectContaining({
          NODE_OPTIONS: '--enable-source-maps',
          NOTES_SPEECH_ENGINE: 'transcribe',
          NOTES_TRANSCRIBE_JOB_PREFIX: `notes-${STAGE}-`,
          POWERTOOLS_SERVICE_NAME: 'notes',
        }),
      },
    });
  });

  it('every log group of the stack, also those of the functions CDK adds, keeps logs for the configured days', () => {
    for (const retention of [30, 90]) {
      const { template: configured } = buildNotesApp({ logRetentionDays: retention });
      const groups = resourcesOfType(configured, 'AWS::Logs::LogGroup');
      for (const group of Object.values(groups)) expect(group.Properties.RetentionInDays).toBe(retention);
      // Every function writes to one of them: no log group is left for Lambda to create unmanaged.
      for (const [id, fn] of Object.entries(resourcesOfType(configured, 'AWS::Lambda::Function'))) {
        const named = (fn.Properties.LoggingConfig as { LogGroup?: { Ref: string } } | undefined)?.LogGroup
          ?.Ref;
        const byDefaultName = Object.values(groups).some(
          (group) =>
            JSON.stringify(group.Properties.LogGroupName) ===
            JSON.stringify({ 'Fn::Join': ['', ['/aws/lambda/', { Ref: id }]] }),
        );
        expect(named ? Object.keys(groups).includes(named) : byDefaultName, id).toBe(true);
      }
    }
  });

  it.each(functions)('%s writes to its own log group with a retention', (name, fn) => {
    const logGroupId = (fn.resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(logGroups[logGroupId]?.Properties).toMatchObject({
      LogGroupName: `/aws/lambda/${name}`,
      RetentionInDays: 30,
    });
    const others = functions.filter(
      ([, other]) =>
        (other.resource.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref ===
        logGroupId,
    );
    expect(others).toHaveLength(1);
  });
});

describe('MCP sign-in', () => {
  it('is a user pool without self sign-up, with a strong password policy and optional MFA', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'OPTIONAL',
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        }),
      },
    });
  });

  it('has a managed-login (version 2) domain', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
  });

  it('has a resource server for the MCP URL (the API URL + /mcp by default) with the four scopes', () => {
    const server = Object.values(resourcesOfType(template, 'AWS::Cognito::UserPoolResourceServer')).find(
      (candidate) => JSON.stringify(candidate.Properties.Identifier).includes('/mcp'),
    );
    const scopes = defined(server, 'the resource server').Properties.Scopes as Array<{ ScopeName: string }>;
    expect(scopes.map((s) => s.ScopeName)).toEqual([
      'notes:read',
      'notes:write',
      'notes:process',
      'notes:delete',
    ]);
    const { template: configured } = buildNotesApp({ mcpResourceUrl: 'https://mcp.example.com/mcp' });
    configured.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
      Identifier: 'https://mcp.example.com/mcp',
    });
  });

  it('has a resource server for the REST API (the API URL + /v1) with the same scopes', () => {
    const servers = Object.values(resourcesOfType(template, 'AWS::Cognito::UserPoolResourceServer'));
    expect(servers).toHaveLength(2);
    const rest = defined(
      servers.find((server) => JSON.stringify(server.Properties.Identifier).includes('/v1')),
      'the REST resource server',
    );
    expect(JSON.stringify(rest.Properties.Identifier)).toBe(
      JSON.stringify({ 'Fn::Join': ['', [stack.resolve(stack.api.url), '/v1']] }),
    );
    const scopes = rest.Properties.Scopes as Array<{ ScopeName: string }>;
    expect(scopes.map((s) => s.ScopeName)).toEqual([
      'notes:read',
      'notes:write',
      'notes:process',
      'notes:delete',
    ]);
  });

  it('lets every REST operation verify access tokens: the public key and the issuer, never signing', () => {
    const functions = functionsByName(template);
    for (const operationId of Object.keys(apiRoutes)) {
      const name = `notes-${STAGE}-${operationId}`;
      const fn = defined(functions.get(name), name);
      const { Variables } = fn.resource.Properties.Environment as { Variables: Record<string, unknown> };
      expect(Object.keys(Variables), name).toEqual(
        expect.arrayContaining(['NOTES_PUBLIC_URL', 'NOTES_OAUTH_KMS_KEY_ID', 'NOTES_OAUTH_UPSTREAM']),
      );
      const actions = statementsOfFunction(template, name).flatMap((statement) => asList(statement.Action));
      expect(actions, name).toContain('kms:GetPublicKey');
      expect(actions, name).not.toContain('kms:Sign');
    }
  });

  it('lets getNoteAudio read objects (to sign playback links) and nothing more of the bucket; key management no objects at all', () => {
    const actionsOf = (operationId: string) =>
      statementsOfFunction(template, `notes-${STAGE}-${operationId}`).flatMap((statement) =>
        asList(statement.Action),
      );
    const audio = actionsOf('getNoteAudio');
    expect(audio).toContain('s3:GetObject');
    expect(audio).not.toContain('s3:PutObject');
    expect(audio).not.toContain('s3:DeleteObject');
    for (const operationId of ['listApiKeys', 'createApiKey', 'revokeApiKey']) {
      expect(
        actionsOf(operationId).filter((action) => action.startsWith('s3:')),
        operationId,
      ).toEqual([]);
    }
    expect(actionsOf('listApiKeys')).not.toContain('dynamodb:PutItem');
    expect(actionsOf('createApiKey')).toContain('dynamodb:PutItem');
  });

  it('signs users in for the authorization server through a public Cognito client (code flow, PKCE, no secret)', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
    });
  });

  it('returns users to the API callback after sign-in and to the docs after sign-out', () => {
    const [client] = Object.values(resourcesOfType(template, 'AWS::Cognito::UserPoolClient'));
    const { CallbackURLs, LogoutURLs } = defined(client, 'the sign-in client').Properties as {
      CallbackURLs: unknown[];
      LogoutURLs: unknown[];
    };
    expect(CallbackURLs).toHaveLength(1);
    expect(JSON.stringify(CallbackURLs[0])).toContain('/oauth/callback');
    expect(JSON.stringify(stack.resolve(stack.api.url))).toBe(
      JSON.stringify((CallbackURLs[0] as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][0]),
    );
    expect(LogoutURLs).toEqual([stack.resolve(stack.docs.url)]);
  });

  it('styles managed login (version 2) for the sign-in client, so its pages render', () => {
    const brandings = Object.values(resourcesOfType(template, 'AWS::Cognito::ManagedLoginBranding'));
    expect(brandings).toHaveLength(1);
    const [clientId] = Object.keys(resourcesOfType(template, 'AWS::Cognito::UserPoolClient'));
    const [poolId] = Object.keys(resourcesOfType(template, 'AWS::Cognito::UserPool'));
    expect(brandings[0]?.Properties).toEqual({
      ClientId: { Ref: clientId },
      UserPoolId: { Ref: poolId },
      UseCognitoProvidedValues: true,
    });
  });

  it('signs access tokens with a KMS P-256 key that only the token endpoint may use to sign', () => {
    template.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    const functions = functionsByName(template);
    const signers = [...functions.keys()].filter((name) =>
      statementsOfFunction(template, name).some((statement) => asList(statement.Action).includes('kms:Sign')),
    );
    expect(signers).toEqual([`notes-${STAGE}-oauthToken`]);
    const mcp = defined(functions.get(`notes-${STAGE}-mcp`), 'the MCP function');
    const variables = (mcp.resource.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining([
        'NOTES_PUBLIC_URL',
        'NOTES_OAUTH_KMS_KEY_ID',
        'NOTES_OAUTH_UPSTREAM',
        'NOTES_OIDC_ISSUER',
      ]),
    );
    expect(variables.NOTES_OAUTH_SIGNING_KEY).toBeUndefined();
    expect(variables.NOTES_MCP_ALLOWED_ORIGINS).toBeUndefined();
  });

  it('gives the authorization server the web app origin (its distribution, or context webAppUrl) for the notes-web client', () => {
    const oauthAuthorize = `notes-${STAGE}-oauthAuthorize`;
    const variablesOf = (t: typeof template) => {
      const fn = defined(functionsByName(t).get(oauthAuthorize), oauthAuthorize);
      return (fn.resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    };
    expect(variablesOf(template).NOTES_WEB_APP_URL).toEqual({
      'Fn::Join': [
        '',
        [
          'https://',
          {
            'Fn::GetAtt': [
              stack.getLogicalId(stack.webApp.distribution.node.defaultChild as never),
              'DomainName',
            ],
          },
        ],
      ],
    });
    const { template: custom } = buildNotesApp({ webAppUrl: 'https://app.example.com' });
    expect(variablesOf(custom).NOTES_WEB_APP_URL).toBe('https://app.example.com');
    expect(() => buildNotesApp({ webAppUrl: 'https://app.example.com/path' })).toThrow(/webAppUrl/);
    expect(() => buildNotesApp({ webAppUrl: 'https://me:secret@app.example.com' })).toThrow(
      /no user name or password/,
    );
    expect(() => buildNotesApp({ webAppUrl: 'https://me:secret@app.example.com' })).not.toThrow(/secret/);
  });

  it('lets the browser origins of context mcpAllowedOrigins call /mcp, and only /mcp', () => {
    const { template: custom } = buildNotesApp({
      mcpAllowedOrigins: 'http://localhost:6274,https://app.example.com',
    });
    const origins = [...functionsByName(custom)].flatMap(([name, fn]) => {
      const { Variables } = fn.resource.Properties.Environment as { Variables: Record<string, unknown> };
      return Variables.NOTES_MCP_ALLOWED_ORIGINS === undefined
        ? []
        : [[name, Variables.NOTES_MCP_ALLOWED_ORIGINS]];
    });
    expect(origins).toEqual([[`notes-${STAGE}-mcp`, 'http://localhost:6274,https://app.example.com']]);
  });
});

describe('the docs site', () => {
  it('serves a private bucket through CloudFront with origin access control, HTTPS only, security headers', () => {
    const distribution = resourcesOfType(template, 'AWS::CloudFront::Distribution')[
      stack.getLogicalId(stack.docs.distribution.node.defaultChild as never)
    ];
    const config = defined(distribution, 'the distribution').Properties.DistributionConfig as Record<
      string,
      unknown
    >;
    const behavior = config.DefaultCacheBehavior as Record<string, unknown>;
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.ResponseHeadersPolicyId).toBe('67f7725c-6f97-4210-82d7-5512b31e9d03'); // SECURITY_HEADERS
    const [origin] = config.Origins as Array<Record<string, unknown>>;
    expect(origin?.OriginAccessControlId).toBeDefined();
    // The origin is the docs bucket's regional domain name: { 'Fn::GetAtt': [bucket, 'RegionalDomainName'] }.
    expect(getAttLogicalId(origin?.DomainName)).toBe(
      stack.getLogicalId(stack.docs.bucket.node.defaultChild as never),
    );
  });

  it('deploys openapi.yaml from the repository root, served at /openapi.yaml, and invalidates the cache', () => {
    const docsBucket = stack.getLogicalId(stack.docs.bucket.node.defaultChild as never);
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: docsBucket },
      DistributionPaths: ['/*'],
      Prune: true,
    });
    // The staged asset is a folder holding openapi.yaml at its root: the bucket key is `openapi.yaml`.
    const staged = readdirSync(built.app.outdir)
      .filter((entry) => entry.startsWith('asset.'))
      .map((entry) => join(built.app.outdir, entry, 'openapi.yaml'))
      .filter((file) => existsSync(file));
    expect(staged).toHaveLength(1);
    expect(readFileSync(staged[0] ?? '', 'utf8')).toBe(
      readFileSync(join(repositoryRoot, 'openapi.yaml'), 'utf8'),
    );
  });

  it('also deploys the files of docs/public/, each file type with its content type', () => {
    const publicDocsDir = mkdtempSync(join(tmpdir(), 'notes-docs-public-'));
    writeFileSync(join(publicDocsDir, 'llms.txt'), '# Notes service\n');
    const docsStack = new Stack(new App(), 'DocsOnly');
    new DocsSite(docsStack, 'Docs', { accessLogsBucket: new Bucket(docsStack, 'Logs'), publicDocsDir });
    const deployments = Object.values(
      Template.fromStack(docsStack).findResources('Custom::CDKBucketDeployment'),
    ) as Array<{
      Properties: { SourceObjectKeys: unknown[]; Include: string[]; Exclude: string[]; Prune: boolean };
    }>;
    const byType = Object.fromEntries(
      deployments.map((d) => [
        (d.Properties as unknown as { SystemMetadata: { 'content-type': string } }).SystemMetadata[
          'content-type'
        ],
        d.Properties,
      ]),
    );
    expect(Object.keys(byType).sort()).toEqual(Object.values(PUBLISHED_DOC_CONTENT_TYPES).sort());
    for (const [extension, contentType] of Object.entries(PUBLISHED_DOC_CONTENT_TYPES)) {
      expect(byType[contentType]).toMatchObject({ Include: [`*${extension}`], Exclude: ['*'], Prune: true });
    }
    // openapi.yaml and docs/public/ for YAML; docs/public/ alone for the others.
    expect(byType['application/yaml']?.SourceObjectKeys).toHaveLength(2);
    expect(byType['text/plain; charset=utf-8']?.SourceObjectKeys).toHaveLength(1);
    rmSync(publicDocsDir, { recursive: true, force: true });
  });
});
