/**
 * What a browser submits from the authorization server's HTML forms (sign-in and consent), for tests
 * that play the user's browser over real HTTP.
 */

export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = match[2] as string;
  }
  return fields;
}

/** The consent page's checkboxes: each scope offered, and whether the page ticked it. */
export function scopeCheckboxes(html: string): Array<{ scope: string; checked: boolean }> {
  return [
    ...html.matchAll(/<input type="checkbox" id="[^"]+" name="scope" value="([^"]+)"( checked)?>/g),
  ].map((match) => ({ scope: match[1] as string, checked: match[2] !== undefined }));
}

/** The scopes the consent page lists as already granted (a step-up). */
export function heldScopes(html: string): string[] {
  const list = /<ul class="held">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li><code>([^<]+)<\/code>/g)].map((match) => match[1] as string);
}

/**
 * The consent form as the browser posts it: the hidden fields, the boxes the page ticked (changed by
 * `tick` and `untick`, as the user would) and the button pressed.
 */
export function consentDecision(
  html: string,
  action: 'approve' | 'deny',
  choice: { tick?: string[]; untick?: string[] } = {},
): URLSearchParams {
  const form = new URLSearchParams(hiddenFields(html));
  for (const { scope, checked } of scopeCheckboxes(html)) {
    const ticked = choice.tick?.includes(scope) || (checked && !choice.untick?.includes(scope));
    if (ticked) form.append('scope', scope);
  }
  form.set('action', action);
  return form;
}
