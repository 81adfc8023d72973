import { authorization, beginSignIn, currentSession, exchangeCode, sessionAccount } from './auth.ts';
import type { AppConfig } from './config.ts';

/** States of consents asked for in a small window (`askPermission`): its callback hands the code back. */
export const WINDOW_STATE_PREFIX = 'window.';
/**
 * How the consent window's callback reaches the tab that asked: a same-origin BroadcastChannel, not
 * `window.opener`, because the app's Cross-Origin-Opener-Policy (same-origin) cuts the window off
 * from its opener as soon as it visits the sign-in pages.
 */
const CONSENT_CHANNEL = 'notes.consent';

/** The person closed the consent window or pressed Cancel: nothing was given. */
export class PermissionNotGiven extends Error {}

/**
 * Asks the person for more permissions without leaving the page: the consent page opens in a small
 * window, whose callback hands the authorization answer back here (matched by its state), and this
 * tab exchanges the code, so the action that needed it can simply run again. Resolves once the wider
 * session is saved; rejects when consent is refused or `cancelled` is aborted. Where the browser
 * blocks the window, the whole tab goes to the consent page and comes back where it was. Either way
 * the permission must come from this tab's account: a sign-in to another account there is refused
 * (OtherAccount) and this tab keeps its session, unless the person signed this browser out there
 * ("Sign out and use another key" on the consent page), which ends this tab's session too. While
 * the browser's sign-in session lives, the window shows only the consent page: no key is asked for.
 */
export async function askPermission(
  config: AppConfig,
  scopes: readonly string[],
  cancelled: AbortSignal,
): Promise<void> {
  const session = currentSession();
  const wanted = [...new Set([...(session?.scope ?? '').split(' ').filter(Boolean), ...scopes])];
  const account = sessionAccount(session);
  const { url, verifier, state } = await authorization(config, wanted, WINDOW_STATE_PREFIX);
  const channel = new BroadcastChannel(CONSENT_CHANNEL);
  try {
    const answer = new Promise<URLSearchParams>((resolve, reject) => {
      channel.onmessage = (event: MessageEvent) => {
        const params = new URLSearchParams(typeof event.data === 'string' ? event.data : '');
        if (params.get('state') === state) resolve(params);
      };
      cancelled.addEventListener('abort', () =>
        reject(new PermissionNotGiven('The permission was not given.')),
      );
    });
    if (!open(url, 'notes-permission', 'popup,width=560,height=760')) {
      await beginSignIn(config, location.hash, wanted, account);
      return new Promise(() => undefined);
    }
    const params = await answer;
    const error = params.get('error');
    if (error === 'access_denied') throw new PermissionNotGiven('The permission was not given.');
    if (error) throw new Error(params.get('error_description') ?? `The permission was not given (${error})`);
    const code = params.get('code');
    if (!code) throw new Error('The consent page answered without a code: try again.');
    await exchangeCode(config, code, verifier, account);
  } finally {
    channel.close();
  }
}

/**
 * On the callback page inside the consent window: hands the answer to the tab that asked (only
 * same-origin pages hear it, and only the asker knows the state) and closes. False when this is not
 * such a window (a whole-tab sign-in).
 */
export function handBackConsent(params: URLSearchParams): boolean {
  if (!(params.get('state') ?? '').startsWith(WINDOW_STATE_PREFIX)) return false;
  const channel = new BroadcastChannel(CONSENT_CHANNEL);
  channel.postMessage(location.search);
  channel.close();
  close();
  return true;
}
