import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { loadConfig } from '../config.ts';
import type { Caller } from '../domain/account.ts';
import { authenticate } from '../domain/accounts.ts';
import { getServices, type Services } from '../services.ts';
import { webAppCorsHeaders } from './cors.ts';
import { toErrorResponse } from './error-mapper.ts';
import { type HttpLambdaHandler, httpLambda } from './http-lambda.ts';
import { header, type ParsedInput, parseInput, type RequestSchemas } from './request.ts';

export type ApiRequest<S extends RequestSchemas> = ParsedInput<S> & {
  caller: Caller;
  services: Services;
  event: APIGatewayProxyEventV2;
};

export type ApiLambdaHandler = HttpLambdaHandler;

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
  const options = {
    onError: toErrorResponse,
    responseHeaders: (event: APIGatewayProxyEventV2) =>
      webAppCorsHeaders(header(event, 'origin'), loadConfig().NOTES_WEB_APP_URL),
  };
  return httpLambda(operationId, options, async (event) => {
    const services = getServices();
    const caller = await authenticate(services.accounts, header(event, 'authorization'));
    const input = parseInput(event, schemas);
    return operation({ ...input, caller, services, event });
  });
}
