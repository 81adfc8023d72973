import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '../domain/account.ts';
import { authenticate } from '../domain/accounts.ts';
import { logger } from '../logging.ts';
import { observed } from '../observability.ts';
import { getServices, type Services } from '../services.ts';
import { toErrorResponse } from './error-mapper.ts';
import { header, type ParsedInput, parseInput, type RequestSchemas } from './request.ts';

export type ApiRequest<S extends RequestSchemas> = ParsedInput<S> & {
  caller: Caller;
  services: Services;
  event: APIGatewayProxyEventV2;
};

export type ApiLambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Builds the Lambda handler of one REST operation: authenticate the key, validate the input at the
 * edge, run the operation, map any error in one place. Authentication comes first so that an
 * unauthenticated caller learns nothing from validation messages.
 */
export function apiHandler<S extends RequestSchemas>(
  operationId: string,
  schemas: S,
  operation: (request: ApiRequest<S>) => Promise<APIGatewayProxyStructuredResultV2>,
): ApiLambdaHandler {
  const logOutcome = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    logger.info('request', {
      operationId,
      status: request.response?.statusCode,
      requestId: request.event.requestContext?.requestId,
    });
  };
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observed())
    .use({
      after: async (request) => logOutcome(request),
      onError: async (request) => {
        request.response = toErrorResponse(request.error);
        logOutcome(request);
      },
    })
    .handler(async (event) => {
      const services = getServices();
      const caller = await authenticate(services.accounts, header(event, 'authorization'));
      const input = parseInput(event, schemas);
      return operation({ ...input, caller, services, event });
    });
}
