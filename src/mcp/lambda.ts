import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiLambdaHandler } from '../http/api-handler.ts';
import { toErrorResponse } from '../http/error-mapper.ts';
import { logger } from '../logging.ts';
import { observed } from '../observability.ts';
import { toApiGatewayResult, toWebRequest } from './api-gateway.ts';
import type { McpHandler } from './handler.ts';

/**
 * The Lambda handler of `/mcp`: the API Gateway event as a Web `Request`, the MCP handler's `Response`
 * back as the Lambda result. Traced and measured like the REST handlers, without API-key
 * authentication (the MCP handler checks OAuth access tokens itself). The MCP handler is created on
 * the first invocation, so a configuration problem is a logged 500, not a failed import.
 */
export function mcpLambdaHandler(createHandler: () => McpHandler): ApiLambdaHandler {
  let mcp: McpHandler | undefined;
  const logOutcome = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    logger.info('request', {
      operationId: 'mcp',
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
      mcp ??= createHandler();
      return toApiGatewayResult(await mcp(toWebRequest(event)));
    });
}
