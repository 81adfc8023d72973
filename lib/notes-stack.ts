import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { WEB_APP_CLIENT_ID } from '../src/oauth/first-party.ts';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '../src/outcome-metrics.ts';
import { requireModelsServedInRegion } from './bedrock-region-check.ts';
import { handlerNodeOptions, STACK_TEXT_ENGINE } from './bundling.ts';
import type { NotesStackConfig } from './config.ts';
import { Alerts } from './constructs/alerts.ts';
import { Api } from './constructs/api.ts';
import { DocsSite } from './constructs/docs-site.ts';
import { McpAuth } from './constructs/mcp-auth.ts';
import type { SharedFunctionProps } from './constructs/notes-function.ts';
import { Queues } from './constructs/queues.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { Storage } from './constructs/storage.ts';
import { TranscribeDataAccess } from './constructs/transcribe-access.ts';
import { WebApp } from './constructs/web-app.ts';
import { Workers } from './constructs/workers.ts';
import { acknowledgeFrameworkFunctions } from './framework-functions.ts';
import { retainAllLogs } from './log-retention.ts';

export interface NotesStackProps extends StackProps {
  config: NotesStackConfig;
}

/**
 * The notes service on AWS: an HTTP API with one Lambda per operation, queue and event workers for
 * transcription (Amazon Transcribe), one DynamoDB table and a data bucket, Cognito for MCP sign-in,
 * and CloudFront for the public docs. Every function comes from a handler file in functions/, named
 * by src/routes.ts: the same handlers the local runtime runs.
 */
export class NotesStack extends Stack {
  readonly api: Api;
  readonly storage: Storage;
  readonly queues: Queues;
  readonly workers: Workers;
  readonly mcpAuth: McpAuth;
  readonly docs: DocsSite;
  readonly webApp: WebApp;

  constructor(scope: Construct, id: string, props: NotesStackProps) {
    super(scope, id, props);
    const { config } = props;
    const prefix = `notes-${config.stage}-`;
    // Cost allocation and ownership: every taggable resource says which service and stage it serves.
    Tags.of(this).add('service', 'notes');
    Tags.of(this).add('stage', config.stage);

    requireModelsServedInRegion(this, config.bedrockModelIds, config.bedrockProfileRegions);

    const alerts = new Alerts(this, 'Alerts', {
      stage: config.stage,
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });
    this.queues = new Queues(this, 'Queues', { stage: config.stage, alerts });
    this.storage = new Storage(this, 'Storage', {
      deletionProtection: config.deletionProtection,
      uploadCorsOrigins: config.uploadCorsOrigins,
      accessLogRetentionDays: config.logRetentionDays,
      uploadsQueue: this.queues.uploads.queue,
    });

    // Signs the MCP server's access tokens; the private key never leaves KMS (src/oauth/kms-signing-key.ts).
    const tokenSigningKey = new Key(this, 'TokenSigningKey', {
      description: `notes-${config.stage}: signs MCP OAuth access tokens (ES256)`,
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });

    const shared: SharedFunctionProps = {
      stage: config.stage,
      logRetention: config.logRetentionDays,
      // What src/config.ts reads (plus Powertools' own settings).
      environment: {
        NOTES_TABLE_NAME: this.storage.table.tableName,
        NOTES_BUCKET_NAME: this.storage.dataBucket.bucketName,
        NOTES_TRANSCRIPTION_QUEUE_URL: this.queues.transcription.queue.queueUrl,
        NOTES_GENERATION_QUEUE_URL: this.queues.generation.queue.queueUrl,
        NOTES_TEXT_ENGINE: STACK_TEXT_ENGINE,
        NOTES_BEDROCK_MODEL_ID: config.bedrockModelIds[0] ?? '',
        NOTES_SPEECH_ENGINE: 'transcribe',
        NOTES_SPEECH_SYNTHESIZER: 'polly',
        NOTES_TRANSCRIBE_JOB_PREFIX: prefix,
        NOTES_TRANSCRIBE_LANGUAGE_CODE: config.transcribeLanguageCode,
        NOTES_TRASH_DAYS: String(config.trashDays),
        POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: handlerNodeOptions,
      },
      grantTargets: {
        table: this.storage.table,
        bucket: this.storage.dataBucket,
        queues: { transcription: this.queues.transcription.queue, generation: this.queues.generation.queue },
        modelIds: config.bedrockModelIds,
        ...(config.bedrockProfileRegions ? { modelProfileRegions: config.bedrockProfileRegions } : {}),
        tokenSigningKey,
      },
    };

    this.api = new Api(this, 'Api', {
      shared,
      throttle: config.apiThrottle,
      accessLogRetention: config.logRetentionDays,
    });
    this.workers = new Workers(this, 'Workers', {
      shared,
      queues: this.queues.byName,
      transcribeJobPrefix: prefix,
      maxConcurrency: config.workerMaxConcurrency,
      alerts,
    });
    new ServiceAlarms(this, 'Alarms', {
      alerts,
      httpApi: this.api.httpApi,
      backgroundFunctions: this.workers.functions,
    });
    // Job queueing: a burst past Transcribe's concurrent-job quota waits in Transcribe's queue.
    new TranscribeDataAccess(this, 'TranscribeDataAccess', {
      bucket: this.storage.dataBucket,
    }).allowJobsStartedBy(this.workers.functions.transcriptionWorker);

    this.docs = new DocsSite(this, 'Docs', { accessLogsBucket: this.storage.accessLogsBucket });
    this.webApp = new WebApp(this, 'WebApp', {
      accessLogsBucket: this.storage.accessLogsBucket,
      apiUrl: this.api.url,
      dataBucket: this.storage.dataBucket,
      clientId: WEB_APP_CLIENT_ID,
      trashDays: config.trashDays,
    });
    // The app's origin: the distribution's, or a domain of the operator's in front of it (context
    // webAppUrl). REST answers its CORS requests; the OAuth server redirects the app's sign-ins there.
    const webAppUrl = config.webAppUrl ?? this.webApp.url;

    this.mcpAuth = new McpAuth(this, 'McpAuth', {
      stage: config.stage,
      deletionProtection: config.deletionProtection,
      resourceUrl: config.mcpResourceUrl ?? `${this.api.url}/mcp`,
      restResourceUrl: `${this.api.url}/v1`,
      // The account ID makes the prefix unique without writing an account ID into the repository.
      domainPrefix: config.authDomainPrefix ?? `${prefix}${Aws.ACCOUNT_ID}`,
      callbackUrl: `${this.api.url}/oauth/callback`,
      signOutUrl: this.docs.url,
    });
    // The MCP endpoint, its authorization server and the REST operations (which accept the server's
    // tokens for the REST API beside API keys): issuer = the API's URL, tokens signed with KMS, users
    // signing in through Cognito managed login (OpenID Connect).
    for (const fn of [...Object.values(this.api.publicFunctions), ...Object.values(this.api.functions)]) {
      const environment: Record<string, string> = {
        NOTES_PUBLIC_URL: this.api.url,
        NOTES_OAUTH_KMS_KEY_ID: tokenSigningKey.keyArn,
        NOTES_OAUTH_UPSTREAM: 'oidc',
        NOTES_OIDC_ISSUER: this.mcpAuth.userPool.userPoolProviderUrl,
        NOTES_OIDC_CLIENT_ID: this.mcpAuth.signInClient.userPoolClientId,
        // The first-party web app client's redirect origin (src/oauth/first-party.ts) and REST's CORS.
        NOTES_WEB_APP_URL: webAppUrl,
      };
      for (const [name, value] of Object.entries(environment)) fn.function.addEnvironment(name, value);
    }
    if (config.mcpAllowedOrigins.length > 0) {
      this.api.publicFunctions.mcp.function.addEnvironment(
        'NOTES_MCP_ALLOWED_ORIGINS',
        config.mcpAllowedOrigins.join(','),
      );
    }

    acknowledgeFrameworkFunctions(this);
    retainAllLogs(this, config.logRetentionDays);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'REST base URL ({base_url})' });
    new CfnOutput(this, 'DataBucketName', { value: this.storage.dataBucket.bucketName });
    new CfnOutput(this, 'AccessLogsBucketName', {
      value: this.storage.accessLogsBucket.bucketName,
      description: 'S3 server access logs (retained on cdk destroy, like the data bucket)',
    });
    new CfnOutput(this, 'TableName', {
      value: this.storage.table.tableName,
      description: 'NOTES_TABLE_NAME for npm run account:create -- --aws',
    });
    new CfnOutput(this, 'WebAppUrl', { value: this.webApp.url, description: 'The web app' });
    new CfnOutput(this, 'DocsUrl', { value: this.docs.url, description: 'Public docs ({docs_url})' });
    new CfnOutput(this, 'UserPoolId', { value: this.mcpAuth.userPool.userPoolId });
    new CfnOutput(this, 'UserPoolDomain', {
      value: this.mcpAuth.domain.baseUrl(),
      description: 'Cognito managed login',
    });
    new CfnOutput(this, 'McpResourceServerId', {
      value: this.mcpAuth.resourceServer.userPoolResourceServerId,
      description: 'Identifier of the MCP resource server (the MCP resource URL)',
    });
  }
}
