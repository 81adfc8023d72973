import { loadConfig } from '#src/config.ts';
import { createMcpHandler } from '#src/mcp/handler.ts';
import { mcpLambdaHandler } from '#src/mcp/lambda.ts';
import { oauthAccessTokenVerifier, recordOAuthStepUp } from '#src/mcp/wiring.ts';

/**
 * The MCP endpoint (POST /mcp): Streamable HTTP, stateless, JSON responses, OAuth access tokens.
 * NOTES_PUBLIC_URL is the service's public base URL (the MCP resource is `<it>/mcp`); browsers may
 * call from its origin and from those listed in NOTES_MCP_ALLOWED_ORIGINS (comma-separated).
 */
export const handler = mcpLambdaHandler(() => {
  const config = loadConfig();
  const publicUrl = config.NOTES_PUBLIC_URL;
  if (!publicUrl) {
    throw new Error(
      'NOTES_PUBLIC_URL is required for the MCP server: the external base URL of the service, e.g. https://notes.example.com',
    );
  }
  return createMcpHandler({
    verifier: oauthAccessTokenVerifier(),
    publicUrl,
    allowedOrigins: [new URL(publicUrl).origin, ...config.NOTES_MCP_ALLOWED_ORIGINS],
    recordStepUp: recordOAuthStepUp,
  });
});
