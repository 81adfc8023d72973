// Runs @ai-sdk/mcp (Node >= 22 only) against an MCP URL with a bearer token, as an app built on the
// AI SDK connects: it lists the tools and calls one. Prints one JSON line: every JSON-RPC method it
// sent with the protocol version header and the answer's status, the tool names, the call's result.
// Usage: node ai-sdk-mcp-client.mjs URL TOKEN TOOL [ARGUMENTS_JSON]
import { createMCPClient } from '@ai-sdk/mcp';

const [url, token, tool, args = '{}'] = process.argv.slice(2);
const sent = [];
async function recordingFetch(input, init) {
  const response = await fetch(input, init);
  let method = null;
  try {
    method = JSON.parse(String(init?.body ?? 'null'))?.method ?? null;
  } catch {
    method = null;
  }
  const headers = new Headers(init?.headers);
  sent.push({
    httpMethod: init?.method ?? 'GET',
    method,
    protocolVersion: headers.get('mcp-protocol-version'),
    status: response.status,
  });
  return response;
}

const client = await createMCPClient({
  transport: { type: 'http', url, headers: { Authorization: `Bearer ${token}` }, fetch: recordingFetch },
});
try {
  const listed = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  process.stdout.write(
    `${JSON.stringify({ sent, tools: listed.tools.map((entry) => entry.name), result })}\n`,
  );
} finally {
  await client.close();
}
