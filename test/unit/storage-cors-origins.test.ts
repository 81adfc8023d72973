import { describe, expect, it } from 'vitest';
import { parseCorsOrigins, StorageCors } from '../../src/local/storage/cors.ts';

describe('NOTES_STORAGE_CORS_ORIGINS', () => {
  it('reads comma-separated origins, ignoring blanks and spaces', () => {
    expect(parseCorsOrigins(' https://notes.example.com, http://localhost:3000 ,,')).toEqual([
      'https://notes.example.com',
      'http://localhost:3000',
    ]);
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins('  ')).toEqual([]);
  });

  it('fails fast on anything that is not exactly an origin', () => {
    for (const value of [
      'https://notes.example.com/app',
      'notes.example.com',
      '*',
      'ftp://files.example.com',
    ]) {
      expect(() => parseCorsOrigins(value), value).toThrow(/not an origin/);
    }
  });
});

describe("the object store's CORS origins", () => {
  it("adds the service's loopback origin under its 127.0.0.1, localhost and [::1] spellings, and nothing else", () => {
    const cors = new StorageCors(['https://notes.example.com']);
    cors.allowServiceOrigin('http://127.0.0.1:8787');
    expect(cors.allowedOrigins().sort()).toEqual(
      [
        'http://127.0.0.1:8787',
        'http://[::1]:8787',
        'http://localhost:8787',
        'https://notes.example.com',
      ].sort(),
    );
  });

  it('adds a non-loopback service origin as it is', () => {
    const cors = new StorageCors();
    cors.allowServiceOrigin('http://192.0.2.10:8787');
    expect(cors.allowedOrigins()).toEqual(['http://192.0.2.10:8787']);
  });
});
