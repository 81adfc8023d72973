import { describe, expect, it } from 'vitest';
import { loadConfigFrom } from '../../src/config.ts';
import { publicAddressesFromEnv } from '../../src/local/public-addresses.ts';

/** The settings every function needs, so that only the URL under test can be wrong. */
const required = {
  NOTES_TABLE_NAME: 'notes',
  NOTES_BUCKET_NAME: 'notes-data',
  NOTES_TRANSCRIPTION_QUEUE_URL: 'http://127.0.0.1:1/transcription',
  NOTES_GENERATION_QUEUE_URL: 'http://127.0.0.1:1/generation',
};

function thrownBy(load: () => unknown): Error {
  try {
    load();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the setting to be refused');
}

describe('public URL settings never carry a user name or password', () => {
  it.each([
    ['NOTES_PUBLIC_URL', 'http://user:pw@notes.example.com'],
    ['NOTES_PUBLIC_URL', 'https://user@notes.example.com/'],
    ['NOTES_WEB_APP_URL', 'https://user:pw@app.example.com'],
  ])('the configuration refuses %s=%s with a sentence naming the setting', (name, value) => {
    const error = thrownBy(() => loadConfigFrom({ ...required, [name]: value }));
    expect(error.message).toBe(
      `Invalid configuration: ${name}: must not contain a user name or password (user:password@), since every client is shown it; give the origin alone`,
    );
  });

  it.each([
    ['NOTES_PUBLIC_URL', 'http://user:pw@localhost:8787'],
    ['NOTES_STORAGE_PUBLIC_URL', 'http://user:pw@localhost:8788/'],
  ])(
    'npm start stops on %s=%s with one sentence that names the setting and does not repeat the password',
    (name, value) => {
      const error = thrownBy(() => publicAddressesFromEnv({ [name]: value }));
      expect(error.name).toBe('StartUpProblem');
      expect(error.message).toMatch(
        new RegExp(
          `^${name} must not contain a user name or password \\(user:password@\\), since every client is shown it; give the origin alone, e\\.g\\. http://localhost:\\d+ or https://notes\\.example\\.com$`,
        ),
      );
      expect(error.message).not.toContain('pw');
    },
  );

  it('the same origins without credentials are taken as before', () => {
    expect(loadConfigFrom({ ...required, NOTES_PUBLIC_URL: 'https://notes.example.com/' })).toMatchObject({
      NOTES_PUBLIC_URL: 'https://notes.example.com',
    });
    expect(loadConfigFrom({ ...required, NOTES_WEB_APP_URL: 'https://app.example.com' })).toMatchObject({
      NOTES_WEB_APP_URL: 'https://app.example.com',
    });
    expect(publicAddressesFromEnv({ NOTES_PUBLIC_URL: 'http://localhost:8787' })).toMatchObject({
      publicUrl: 'http://localhost:8787',
    });
  });
});
