/** A `tools/list` request, the smallest call that needs a valid token. */
export const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as const;

/**
 * A raw JSON-RPC POST to an MCP endpoint, as a Streamable HTTP client sends it (for tests of status
 * codes and headers that the SDK client would hide). `headers` adds or overrides, e.g.
 * `authorization` or `origin`.
 */
export function postMcp(
  mcpUrl: string,
  body: unknown = TOOLS_LIST,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The same with an access token. */
export function postMcpWithToken(
  mcpUrl: string,
  token: string,
  body: unknown = TOOLS_LIST,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postMcp(mcpUrl, body, { authorization: `Bearer ${token}`, ...headers });
}
