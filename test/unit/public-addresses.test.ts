import { describe, expect, it } from 'vitest';
import { listenerUrl, publicAddressesFromEnv } from '../../src/local/public-addresses.ts';

describe('the listening host and public URLs of the local runtime', () => {
  it('listen on 127.0.0.1 with no public URLs when nothing is set (an empty setting counts as unset)', () => {
    expect(publicAddressesFromEnv({})).toEqual({ listenHost: '127.0.0.1' });
    expect(
      publicAddressesFromEnv({ NOTES_LISTEN_HOST: '', NOTES_PUBLIC_URL: ' ', NOTES_STORAGE_PUBLIC_URL: '' }),
    ).toEqual({
      listenHost: '127.0.0.1',
    });
  });

  it('take IPv4 and IPv6 addresses, and origins without their trailing slash', () => {
    expect(
      publicAddressesFromEnv({
        NOTES_LISTEN_HOST: '::',
        NOTES_PUBLIC_URL: 'https://notes.example.com/',
        NOTES_STORAGE_PUBLIC_URL: 'http://192.168.1.20:8788',
      }),
    ).toEqual({
      listenHost: '::',
      publicUrl: 'https://notes.example.com',
      storagePublicUrl: 'http://192.168.1.20:8788',
    });
  });

  it.each([
    [{ NOTES_LISTEN_HOST: 'localhost' }, /NOTES_LISTEN_HOST must be an IP address.*got 'localhost'/],
    [{ NOTES_PUBLIC_URL: 'notes.example.com' }, /NOTES_PUBLIC_URL must be an http\(s\) origin/],
    [{ NOTES_PUBLIC_URL: 'https://notes.example.com/api' }, /no path/],
    [
      { NOTES_STORAGE_PUBLIC_URL: 'ftp://files.example.com' },
      /NOTES_STORAGE_PUBLIC_URL must be an http\(s\) origin/,
    ],
    [{ NOTES_STORAGE_PUBLIC_URL: 'http://files.example.com?x=1' }, /NOTES_STORAGE_PUBLIC_URL/],
  ])('refuse %j with a StartUpProblem that names the setting', (env, message) => {
    let thrown: unknown;
    try {
      publicAddressesFromEnv(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: 'StartUpProblem' });
    expect((thrown as Error).message).toMatch(message);
  });

  it('reach a wildcard listener at 127.0.0.1, and bracket an IPv6 one', () => {
    expect(listenerUrl('0.0.0.0', 8787)).toBe('http://127.0.0.1:8787');
    expect(listenerUrl('::', 8787)).toBe('http://127.0.0.1:8787');
    expect(listenerUrl('127.0.0.1', 8788)).toBe('http://127.0.0.1:8788');
    expect(listenerUrl('::1', 8788)).toBe('http://[::1]:8788');
  });
});
