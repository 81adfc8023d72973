/**
 * Where the app finds the API and its sign-in, and the service settings it tells people about:
 * `/app/config.json`, written by the server that serves the app (the local runtime, or the stack's
 * deployment on AWS, where the app and the API have different origins). Nothing secret is in it.
 */
export interface AppConfig {
  /** Base URL of the REST API (without `/v1`). */
  api_base_url: string;
  /** The OAuth authorization server's issuer; its metadata names the endpoints. */
  issuer: string;
  /** The app's public OAuth client (PKCE, no secret). */
  client_id: string;
  /** The REST API as an OAuth resource (RFC 8707): the audience of the app's tokens. */
  resource: string;
  scopes: string[];
  /**
   * Days a note the retention moved to the trash stays there before it is deleted for good: the
   * operator's trash period (NOTES_TRASH_DAYS), which the API does not say.
   */
  trash_days: number;
}

/**
 * URLs in the configuration may be relative (the local runtime serves the app and the API from one
 * origin, reachable under several names): they are resolved against the address the browser used.
 */
export async function loadConfig(): Promise<AppConfig> {
  const response = await fetch('/app/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`The app's configuration could not be loaded (HTTP ${response.status})`);
  const raw = (await response.json()) as AppConfig;
  const absolute = (value: string) => new URL(value, location.origin).href.replace(/\/$/, '');
  return {
    ...raw,
    api_base_url: absolute(raw.api_base_url),
    issuer: absolute(raw.issuer),
    resource: absolute(raw.resource),
  };
}
