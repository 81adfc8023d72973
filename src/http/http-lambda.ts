import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { logger } from '../logging.ts';
import { observed } from '../observability.ts';

export type HttpLambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface HttpLambdaOptions {
  /** The answer to an error the endpoint threw (each kind of endpoint has its error format). */
  onError: (error: unknown) => APIGatewayProxyStructuredResultV2;
  /** A short, non-secret label of an error for the request log line (e.g. an OAuth error code). */
  errorLabel?: (error: unknown) => string | undefined;
  /** Headers added to every answer, errors included (e.g. CORS: a browser must read the errors too). */
  responseHeaders?: (event: APIGatewayProxyEventV2) => Record<string, string>;
}

/**
 * The Lambda wrapper of every HTTP function (REST operations, MCP, OAuth): observability, one log line
 * per request (route, status, request ID; never headers, parameters or bodies; successful reads at
 * DEBUG) and the endpoint's error mapping in one place.
 */
export function httpLambda(
  route: string,
  options: HttpLambdaOptions,
  run: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
): HttpLambdaHandler {
  const logOutcome = (
    request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>,
    error?: string,
  ) => {
    const status = request.response?.statusCode;
    const fields = {
      route,
      status,
      requestId: request.event.requestContext?.requestId,
      ...(error ? { error } : {}),
    };
    // Reads that succeed are routine (a client polls a job every few seconds): DEBUG. Changes and
    // failures are what a person looks for: INFO. API Gateway's access log has every request on AWS.
    if (isRoutineRead(request.event.requestContext?.http?.method, status)) logger.debug('request', fields);
    else logger.info('request', fields);
  };
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observed())
    .use({
      after: async (request) => {
        addHeaders(request, options);
        logOutcome(request);
      },
      onError: async (request) => {
        request.response = options.onError(request.error);
        addHeaders(request, options);
        logOutcome(request, options.errorLabel?.(request.error));
      },
    })
    .handler(run);
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function isRoutineRead(method: string | undefined, status: number | undefined): boolean {
  return READ_METHODS.has(method ?? '') && status !== undefined && status < 400;
}

function addHeaders(
  request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>,
  options: HttpLambdaOptions,
): void {
  const extra = options.responseHeaders?.(request.event);
  if (!request.response || !extra || Object.keys(extra).length === 0) return;
  request.response = { ...request.response, headers: { ...request.response.headers, ...extra } };
}
