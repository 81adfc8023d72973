/**
 * The OAuth scopes of the MCP server (DESIGN.md section 4): the Cognito resource server (CDK), the
 * authorization server, the MCP handler's checks and the published skill.json all read them here.
 */
export const mcpScopes = {
  'notes:read': 'Read notes, transcripts and Insights',
  'notes:write': 'Rename, trash and restore notes; organise them in collections',
  'notes:process': 'Start transcription, Insights and artifact generation',
  'notes:delete': 'Delete results and notes permanently',
} as const;

export type McpScope = keyof typeof mcpScopes;
