import { type McpScope, mcpScopes } from '../domain/scopes.ts';
import { OAuthError } from './errors.ts';

/** What a client gets when it asks for no scope (DESIGN.md section 4): read, and start processing. */
export const DEFAULT_SCOPES: readonly McpScope[] = ['notes:read', 'notes:process'];

export const SUPPORTED_SCOPES = Object.keys(mcpScopes) as McpScope[];

export function isMcpScope(value: string): value is McpScope {
  return Object.hasOwn(mcpScopes, value);
}

/**
 * Parses an OAuth `scope` parameter (space-delimited, RFC 6749 section 3.3). Absent or blank means the
 * default scopes; any unknown scope fails with `invalid_scope`. The result is deduplicated and in the
 * canonical order of `mcpScopes`.
 */
export function parseScopes(scope: string | undefined | null): McpScope[] {
  const tokens = (scope ?? '').split(' ').filter((token) => token.length > 0);
  if (tokens.length === 0) return [...DEFAULT_SCOPES];
  const unknown = tokens.filter((token) => !isMcpScope(token));
  if (unknown.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `Unknown scope ${JSON.stringify(unknown[0]?.slice(0, 64))}; supported: ${SUPPORTED_SCOPES.join(' ')}`,
    );
  }
  return canonical(tokens as McpScope[]);
}

/** A refresh may ask for fewer scopes than were granted, never more (RFC 6749 section 6). */
export function narrowScopes(granted: readonly McpScope[], requested: string | undefined): McpScope[] {
  if (requested === undefined || requested.trim() === '') return canonical(granted);
  const asked = parseScopes(requested);
  const extra = asked.filter((scope) => !granted.includes(scope));
  if (extra.length > 0) {
    throw new OAuthError('invalid_scope', `Scope ${extra[0]} was not granted to this refresh token`);
  }
  return asked;
}

/** Both sets, in canonical order: what a grant holds after a step-up adds to it. */
export function unionScopes(held: readonly McpScope[], added: readonly McpScope[]): McpScope[] {
  return canonical([...held, ...added]);
}

/** The scopes of `asked` that `ceiling` holds: what a credential holding `ceiling` may give. */
export function withinCeiling(asked: readonly McpScope[], ceiling: readonly McpScope[]): McpScope[] {
  return asked.filter((scope) => ceiling.includes(scope));
}

/**
 * Whether the consent page ticks the scope before the user chooses. Only what cannot be undone is
 * left for the user to tick: notes:delete removes notes and results for good, while a rename or a
 * trashed note (notes:write) can be reverted, and what processing (notes:process) makes can be made again.
 */
export function tickedByDefault(scope: McpScope): boolean {
  return scope !== 'notes:delete';
}

export function formatScopes(scopes: readonly McpScope[]): string {
  return scopes.join(' ');
}

function canonical(scopes: readonly McpScope[]): McpScope[] {
  return SUPPORTED_SCOPES.filter((scope) => scopes.includes(scope));
}
