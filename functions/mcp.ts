import { loadConfig } from '#src/config.ts';
import { createMcpHandler } from '#src/mcp/handler.ts';
import { mcpLambdaHandler } from '#src/mcp/lambda.ts';
import { oauthAccessTokenVerifier, recordOAuthStepUp } from '#src/mcp/wiring.ts';
import { publicBaseUrls } from '#src/oauth/settings.ts';

/**
 * The MCP endpoint (POST /mcp): Streamable HTTP, stateless, JSON responses, OAuth access tokens.
 * NOTES_PUBLIC_URL is the service's public base URL (the MCP resource is `<it>/mcp`; locally also its
 * other loopback spelling); browsers may call from its origins and from those listed in
 * NOTES_MCP_ALLOWED_ORIGINS (comma-separated).
 */
export const handler = mcpLambdaHandler(() => {
  const config = loadConfig();
  const publicUrl = config.NOTES_PUBLIC_URL;
  if (!publicUrl) {
    throw new Error(
      'NOTES_PUBLIC_URL is required for the MCP server: the external base URL of the service, e.g. https://notes.example.com',
    );
  }
  // Locally both loopback spellings of the port; on AWS the one public URL.
  const [primary, ...otherPublicUrls] = publicBaseUrls(publicUrl) as [string, ...string[]];
  return createMcpHandler({
    verifier: oauthAccessTokenVerifier(),
    publicUrl: primary,
    otherPublicUrls,
    allowedOrigins: [
      ...[primary, ...otherPublicUrls].map((url) => new URL(url).origin),
      ...config.NOTES_MCP_ALLOWED_ORIGINS,
    ],
    recordStepUp: recordOAuthStepUp,
  });
});
