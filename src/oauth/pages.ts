import { type McpScope, mcpScopes } from '../domain/scopes.ts';
import { tickedByDefault } from './scopes.ts';

/**
 * The sign-in, consent and error pages: plain HTML forms, no script, every interpolated value
 * escaped. The HTTP layer serves them with a CSP that forbids scripts and framing.
 */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export interface ClientView {
  /** The client's own name (unverified for registered clients). */
  name: string | null;
  /** For a metadata-document client: the host that vouches for the name. */
  verifiedHost: string | null;
  /** Where the browser goes afterwards: host[:port], or the private-use scheme. */
  redirectHost: string;
}

export interface SignInPage {
  client: ClientView;
  requestId: string;
  csrf: string;
  error?: string;
}

export interface ConsentPage {
  client: ClientView;
  /** The account signed in to: its name and when it was made, so a person recognises it. */
  account: { name: string; createdAt: number | null };
  /** What the client's grant already holds (a step-up); kept whatever the user decides here. */
  held: McpScope[];
  /** What the request asks for beyond that, within what the signed-in key holds: one checkbox each. */
  offered: McpScope[];
  /** What the request asks for that the API key signed in with does not hold: listed, not offered. */
  beyondKey: McpScope[];
  /**
   * Tick every offered scope: for the service's own web app, which asks for a permission only at the
   * moment a person needs it (permanent deletion when they delete). Otherwise deletion is left unticked.
   */
  ticksRequested?: boolean;
  /** Signed in earlier on this browser (no key typed now): the page offers to sign out instead. */
  signedInBefore?: boolean;
  requestId: string;
  csrf: string;
}

const STYLE = `:root{color-scheme:light dark}
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;background:#fff;line-height:1.45}
h1{font-size:1.35rem}.box{border:1px solid #ccc;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
.muted{color:#555;font-size:.92rem}.error{color:#a00;font-weight:600}ul{padding-left:1.2rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}input[type=password]{width:100%;padding:.5rem;font-family:monospace;box-sizing:border-box}
fieldset{border:0;padding:0;margin:.5rem 0}legend{font-weight:600;padding:0}.scope{display:flex;gap:.5rem;align-items:baseline;margin:.45rem 0}
.scope input{margin:0}.scope label{display:inline;margin:0;font-weight:400}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{padding:.55rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #888;background:#f4f4f4;cursor:pointer}
button.primary{background:#1f5fbf;border-color:#1f5fbf;color:#fff}code{font-size:.9em}
@media (prefers-color-scheme:dark){body{color:#e8e8e8;background:#16181c}.muted{color:#b8b8b8}.error{color:#ff9b9b}
.box{border-color:#555}button{background:#2a2d33;color:#e8e8e8;border-color:#777}button.primary{background:#4d8ef0;border-color:#4d8ef0;color:#0b0b0b}}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function clientLine(client: ClientView): string {
  const name = client.name
    ? `<strong>${escapeHtml(client.name)}</strong>`
    : '<strong>An unnamed application</strong>';
  const vouch = client.verifiedHost
    ? ` <span class="muted">(published by ${escapeHtml(client.verifiedHost)})</span>`
    : ' <span class="muted">(name given by the application itself)</span>';
  return `${name}${vouch}`;
}

function hidden(requestId: string, csrf: string): string {
  return `<input type="hidden" name="request_id" value="${escapeHtml(requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
}

export function renderSignIn(page: SignInPage): string {
  const error = page.error ? `<p class="error" role="alert">${escapeHtml(page.error)}</p>` : '';
  return layout(
    'Sign in to Notes',
    `<h1>Sign in to Notes</h1>
<p>${clientLine(page.client)} wants to connect to your notes. Sign in with one of your API keys to continue.</p>
<p class="muted">Running the service on this computer? Its key is in the file <code>api-key</code> in the
service's data folder: <code>.notes-data/api-key</code> in the folder you ran <code>npm start</code> from
(or <code>$NOTES_DATA_DIR/api-key</code> if you set <code>NOTES_DATA_DIR</code>). <code>npm start</code> also
printed it the first time it ran. A key for another account comes from
<code>npm run account:create -- --name &lt;name&gt;</code>.</p>
${error}
<form method="post" action="/oauth/authorize" autocomplete="off">
${hidden(page.requestId, page.csrf)}
<label for="api_key">API key</label>
<input type="password" id="api_key" name="api_key" placeholder="svc_sk_..." autocomplete="off" spellcheck="false">
<p class="muted">The key is checked once and is not stored by the sign-in, nor given to the application.</p>
<div class="scope"><input type="checkbox" id="remember" name="remember" value="1" checked>
<label for="remember">Stay signed in on this browser (until you sign out, a week unused, or 30 days)</label></div>
<div class="actions">
<button class="primary" type="submit" name="action" value="sign_in">Sign in</button>
<button type="submit" name="action" value="deny">Cancel</button>
</div>
</form>`,
  );
}

function scopeText(scope: McpScope): string {
  return `<code>${escapeHtml(scope)}</code>: ${escapeHtml(mcpScopes[scope])}`;
}

/** One checkbox per scope, in a fieldset whose legend says what ticking means. */
function scopeChoices(legend: string, scopes: McpScope[], ticksRequested: boolean): string {
  const boxes = scopes.map((scope) => {
    const id = `scope-${scope.replace(':', '-')}`;
    const checked = ticksRequested || tickedByDefault(scope) ? ' checked' : '';
    return `<div class="scope"><input type="checkbox" id="${id}" name="scope" value="${escapeHtml(scope)}"${checked}>
<label for="${id}">${scopeText(scope)}</label></div>`;
  });
  return `<fieldset>
<legend>${escapeHtml(legend)}</legend>
${boxes.join('\n')}
</fieldset>`;
}

export function renderConsent(page: ConsentPage): string {
  const held =
    page.held.length > 0
      ? `<p>You already allowed it to:</p>
<ul class="held">
${page.held.map((scope) => `<li>${scopeText(scope)}</li>`).join('\n')}
</ul>
<p class="muted">To keep just that, leave the new permissions unticked and press Allow. Deny may leave the application signed out until you sign in again.</p>`
      : '';
  const offered =
    page.offered.length > 0
      ? `${scopeChoices(page.held.length > 0 ? 'It now also asks to:' : 'Allow it to:', page.offered, page.ticksRequested === true)}
<p class="muted">${
          page.ticksRequested
            ? 'Only the ticked permissions are given. The app asks for each when you use it, so what it asks for is ticked; untick what you do not want to give.'
            : 'Only the ticked permissions are given. Permanent deletion is never ticked for you; the application can ask again when it needs more.'
        }</p>`
      : '';
  const beyondKey =
    page.beyondKey.length > 0
      ? `<p class="beyond-key">It also asks to do what the API key you signed in with may not:</p>
<ul class="beyond-key">
${page.beyondKey.map((scope) => `<li>${scopeText(scope)}</li>`).join('\n')}
</ul>
<p class="muted">A sign-in gives no more than its key holds. To allow these, start again from the application and sign in with a key that holds them.</p>`
      : '';
  return layout(
    'Allow access to your notes?',
    `<h1>Allow access to your notes?</h1>
<form method="post" action="/oauth/authorize">
${hidden(page.requestId, page.csrf)}
<div class="box">
<p>${clientLine(page.client)} asks for access to your notes in ${accountLine(page.account)}.</p>
${held}
${offered}
${beyondKey}
<p class="muted">After you decide, your browser returns to <strong>${escapeHtml(page.client.redirectHost)}</strong>.
Only allow applications you trust.</p>
</div>
<div class="actions">
<button class="primary" type="submit" name="action" value="approve">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</div>
${
  page.signedInBefore
    ? `<p class="muted">You are signed in on this browser. Not your account, or another key?
<button type="submit" name="action" value="sign_out">Sign out and use another key</button></p>`
    : ''
}
</form>`,
  );
}

const accountDate = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

/** The name `npm start` gives the account it makes on first start (src/local/local-account.ts). */
export const LOCAL_ACCOUNT_NAME = 'local';

/**
 * "the account “Ada”, made on 27 November 2026", or for the account `npm start` made, "the account on
 * this computer": its name alone ("local") says little to a person.
 */
function accountLine(account: ConsentPage['account']): string {
  const made = account.createdAt === null ? '' : ` on ${escapeHtml(accountDate.format(account.createdAt))}`;
  if (account.name === LOCAL_ACCOUNT_NAME) {
    return `<strong>the account on this computer</strong> (the one <code>npm start</code> made${made}, whose key you signed in with)`;
  }
  const madeOn = made ? `, made${made}` : '';
  return `the account <strong>“${escapeHtml(account.name)}”</strong>${madeOn}, the one you signed in to`;
}

export function renderError(title: string, description: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(description)}</p>
<p class="muted">Go back to the application and connect again.</p>`,
  );
}
