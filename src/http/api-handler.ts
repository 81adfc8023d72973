import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { loadConfig } from '../config.ts';
import type { Caller } from '../domain/account.ts';
import type { OperationId } from '../routes.ts';
import { getServices, type Services } from '../wiring/services.ts';
import { webAppCorsHeaders } from './cors.ts';
import { toErrorResponse } from './error-mapper.ts';
import { type HttpLambdaHandler, httpLambda } from './http-lambda.ts';
import { header, type ParsedInput, parseInput, type RequestSchemas } from './request.ts';
import { authenticateRest } from './rest-auth.ts';

export type ApiRequest<S extends RequestSchemas> = ParsedInput<S> & {
  caller: Caller;
  services: Services;
  event: APIGatewayProxyEventV2;
};

export type ApiLambdaHandler = HttpLambdaHandler;

/**
 * Builds the Lambda handler of one REST operation: authenticate the API key or access token (and the
 * token's scopes), validate the input at the edge, run the operation, map any error in one place.
 * Authentication comes first so that an unauthenticated caller learns nothing from validation messages.
 */
export function apiHandler<S extends RequestSchemas>(
  operationId: OperationId,
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
    const caller = await authenticateRest(services, event, operationId);
    const input = parseInput(event, schemas);
    return operation({ ...input, caller, services, event });
  });
}
