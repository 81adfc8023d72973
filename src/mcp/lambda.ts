import type { ApiLambdaHandler } from '../http/api-handler.ts';
import { toErrorResponse } from '../http/error-mapper.ts';
import { httpLambda } from '../http/http-lambda.ts';
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
  return httpLambda('mcp', { onError: toErrorResponse }, async (event) => {
    mcp ??= createHandler();
    return toApiGatewayResult(await mcp(toWebRequest(event)));
  });
}
