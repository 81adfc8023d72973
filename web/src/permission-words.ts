/**
 * The service's permissions (OAuth scopes) as a person would say what they allow; the consent page
 * shows the same permissions with the service's own descriptions.
 */
const WORDS: Record<string, string> = {
  'notes:read': 'read your notes',
  'notes:write': 'rename, trash and organise your notes',
  'notes:process': 'transcribe recordings and write summaries',
  'notes:delete': 'delete notes permanently',
};

/** Every permission, in the service's order (openapi.yaml, scopes). */
export const ALL_PERMISSIONS = Object.keys(WORDS);

/** "delete notes permanently", or several joined with "and". */
export function permissionWords(scopes: readonly string[]): string {
  const words = scopes.map((scope) => WORDS[scope] ?? scope);
  if (words.length === 0) return 'do that';
  return words.length === 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
