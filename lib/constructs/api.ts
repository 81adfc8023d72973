import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  apiRoutes,
  type OperationId,
  type PublicRoute,
  type PublicRouteName,
  publicRoutes,
} from '../../src/routes.ts';
import { apiSizingOf } from '../function-sizing.ts';
import { acknowledge } from '../nag.ts';
import { NotesFunction, type SharedFunctionProps } from './notes-function.ts';

export interface ApiProps {
  shared: SharedFunctionProps;
  throttle: ThrottleSettings;
  accessLogRetention: RetentionDays;
}

/**
 * Why no route has an API Gateway authorizer. (cdk-nag's COG4, "use a Cognito authorizer", checks
 * REST API methods only and does not fire on HTTP API routes.)
 */
const IN_HANDLER_AUTH =
  'The handler checks the API key itself (hashed keys in DynamoDB), so the local runtime and AWS run the same auth code';

/** Why the MCP and OAuth routes have no authorizer either. */
const PUBLIC_AUTH =
  'OAuth endpoints are public by protocol (metadata, registration, authorize, token); /mcp verifies its OAuth access tokens (issuer, audience, expiry, scopes) in the handler';

/**
 * The REST API: an HTTP API with one route per entry of `apiRoutes` (src/routes.ts), each to its own
 * function `notes-<stage>-<operationId>`. The route table is the only input, so an operation cannot
 * get a route without a handler or a handler without a route.
 *
 * API Gateway has no CORS configuration: the REST API is not for browsers (they only PUT recordings
 * to the data bucket, whose CORS rule allows that), and the OAuth and MCP functions answer their own
 * preflights (the `OPTIONS` endpoints of `publicRoutes`), which a CORS configuration would intercept. HTTP API caps request bodies at 10 MB; the
 * handlers validate every body with zod, and recordings never pass through the API.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly functions: Record<OperationId, NotesFunction>;
  /** The MCP endpoint and the OAuth authorization server (src/routes.ts `publicRoutes`). */
  readonly publicFunctions: Record<PublicRouteName, NotesFunction>;
  /** `https://<id>.execute-api.<region>.amazonaws.com`, without a trailing slash. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { stage } = props.shared;

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `notes-${stage}`,
      description: 'Notes service REST API (openapi.yaml)',
      // The default stage is declared below, with throttling and access logs.
      createDefaultStage: false,
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // Identifiers and outcomes only: never the Authorization header, query strings or bodies.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTimeEpoch',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });
    this.url = this.httpApi.apiEndpoint;

    const functions: Partial<Record<OperationId, NotesFunction>> = {};
    for (const operationId of Object.keys(apiRoutes) as OperationId[]) {
      const route = apiRoutes[operationId];
      const fn = new NotesFunction(this, operationId, {
        handler: operationId,
        // Every operation verifies OAuth access tokens (the public half of the signing key) beside API keys.
        needs: { ...route.needs, tokenKey: 'verify' },
        shared: props.shared,
        ...apiSizingOf(operationId),
      });
      const httpRoute = new HttpRoute(this, `${operationId}Route`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${operationId}Integration`, fn.function),
      });
      acknowledge(httpRoute, 'APIG4', IN_HANDLER_AUTH);
      functions[operationId] = fn;
    }
    this.functions = functions as Record<OperationId, NotesFunction>;

    const publicFunctions: Partial<Record<PublicRouteName, NotesFunction>> = {};
    for (const name of Object.keys(publicRoutes) as PublicRouteName[]) {
      const route: PublicRoute = publicRoutes[name];
      const fn = new NotesFunction(this, name, {
        handler: name,
        needs: route.needs,
        shared: props.shared,
        ...apiSizingOf(name),
      });
      const integration = new HttpLambdaIntegration(`${name}Integration`, fn.function);
      for (const { method, path } of route.endpoints) {
        const httpRoute = new HttpRoute(this, `${name}${method}${path}Route`, {
          httpApi: this.httpApi,
          routeKey: HttpRouteKey.with(path, HttpMethod[method]),
          integration,
        });
        acknowledge(httpRoute, 'APIG4', PUBLIC_AUTH);
      }
      publicFunctions[name] = fn;
    }
    this.publicFunctions = publicFunctions as Record<PublicRouteName, NotesFunction>;
  }
}
