import { describe, expect, it } from 'vitest';
import { renderConsent, renderError, renderSignIn } from '../../src/oauth/pages.ts';

const client = { name: 'Notes web app', verifiedHost: 'notes.example', redirectHost: 'notes.example' };
const consent = (name: string) =>
  renderConsent({
    client,
    account: { name, createdAt: Date.UTC(2026, 10, 27) },
    held: [],
    offered: ['notes:read'],
    beyondKey: [],
    requestId: 'r',
    csrf: 'c',
  });

describe('the server’s sign-in and consent pages', () => {
  it('name the account in words: the one npm start made as the account on this computer, another by its name and date', () => {
    expect(consent('local')).toContain(
      'your notes in <strong>the account on this computer</strong> (the one <code>npm start</code> made on 27 November 2026',
    );
    expect(consent('local')).not.toContain('“local”');
    expect(consent('Ada <3')).toContain('the account <strong>“Ada &lt;3”</strong>, made on 27 November 2026');
  });

  it('say on the sign-in page where a local user finds the key', () => {
    const page = renderSignIn({ client, requestId: 'r', csrf: 'c' });
    expect(page).toContain('<code>.notes-data/api-key</code>');
    expect(page).toContain('npm run account:create');
  });

  it('hold their content in a <main> landmark, every one of them', () => {
    for (const page of [
      consent('local'),
      renderSignIn({ client, requestId: 'r', csrf: 'c' }),
      renderError('t', 'd'),
    ]) {
      expect(page).toMatch(/<body>\s*<main>[\s\S]*<\/main>\s*<\/body>/);
    }
  });
});
