/**
 * An account's sessions (openapi.yaml, Session) said as a person would: which application or
 * browser, what signed it in, and where it is.
 */
export interface AccountSession {
  session_id: string;
  kind: 'app' | 'browser';
  client_id: string | null;
  client_name: string | null;
  scopes: string[];
  created_at: number;
  last_used_at: number | null;
  expires_at: number;
  signed_in_with:
    | { kind: 'api_key'; key_id: string; name: string | null; prefix: string | null }
    | { kind: 'identity_provider' }
    | { kind: 'unrecorded' };
  browser_session_id: string | null;
  user_agent: string | null;
  current: boolean;
}

/** The service's own web app (src/oauth/first-party.ts, WEB_APP_CLIENT_ID). */
const WEB_APP_CLIENT_ID = 'notes-web';

/** "Notes web app", "Claude Desktop", "A browser sign-in"… what the session's row is called. */
export function sessionName(session: AccountSession): string {
  if (session.kind === 'browser') return 'A browser sign-in';
  if (session.client_id === WEB_APP_CLIENT_ID) return 'Notes web app';
  return session.client_name?.trim() || 'An unnamed application';
}

/** The name, with the browser where it helps tell rows apart: "A browser sign-in (Chrome on Linux)". */
export function sessionLabel(session: AccountSession): string {
  const browser = session.kind === 'browser' ? browserWords(session.user_agent) : null;
  return browser ? `${sessionName(session)} (${browser})` : sessionName(session);
}

/** "Signed in with key “laptop” (svc_sk_ab12…)". */
export function signedInWords(session: AccountSession): string {
  const how = session.signed_in_with;
  if (how.kind === 'identity_provider') return 'Signed in through your sign-in provider';
  if (how.kind === 'unrecorded') return 'Signed in before sign-ins were recorded';
  const prefix = how.prefix ? ` (${how.prefix}…)` : '';
  if (how.name) return `Signed in with key “${how.name}”${prefix}`;
  return how.prefix ? `Signed in with an unnamed key${prefix}` : 'Signed in with an API key';
}

/** Longer user agents are cut to this, when nothing in them is recognised. */
const RAW_LENGTH = 60;

/**
 * "Chrome on Linux", "Safari on iPhone", from a browser's User-Agent; the raw string (shortened)
 * when it names no browser known here; null when there is none.
 */
export function browserWords(userAgent: string | null): string | null {
  const agent = userAgent?.trim();
  if (!agent) return null;
  const browser = browserName(agent);
  const system = systemName(agent);
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  return agent.length > RAW_LENGTH ? `${agent.slice(0, RAW_LENGTH - 1)}…` : agent;
}

/** Checked in order: Edge and Opera also say "Chrome", Chrome also says "Safari". */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\bChromium\//, 'Chromium'],
  [/\b(HeadlessChrome|Chrome|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

function browserName(agent: string): string | null {
  return BROWSERS.find(([pattern]) => pattern.test(agent))?.[1] ?? null;
}

function systemName(agent: string): string | null {
  return SYSTEMS.find(([pattern]) => pattern.test(agent))?.[1] ?? null;
}

/**
 * Where a session is, said from this tab: "This tab", "This browser", "Another tab of this
 * browser"; null for a session elsewhere.
 */
export function whereWords(session: AccountSession, all: readonly AccountSession[]): string | null {
  if (session.current) return session.kind === 'browser' ? 'This browser' : 'This tab';
  const browser = all.find((other) => other.session_id === session.browser_session_id);
  if (browser?.current && session.client_id === WEB_APP_CLIENT_ID) return 'Another tab of this browser';
  if (browser?.current) return 'Through this browser';
  return null;
}

/**
 * The list in the order a person reads it: this browser and this tab first, then the rest newest
 * first (the server's order).
 */
export function inReadingOrder(sessions: readonly AccountSession[]): AccountSession[] {
  const rank = (session: AccountSession) => (session.current ? (session.kind === 'browser' ? 0 : 1) : 2);
  return [...sessions].sort((a, b) => rank(a) - rank(b));
}
