import { describe, expect, it } from 'vitest';
import { UnprocessableError } from '../../src/domain/errors.ts';
import { resolveArtifactLanguage, satisfiesLanguage } from '../../src/domain/languages.ts';

const local = { text: 'transcript', speech: ['en'] } as const;
const aws = { text: 'any', speech: ['en-US', 'en-GB', 'de-DE', 'pt-BR'] } as const;

describe('the language of an artifact', () => {
  it("follows the transcript for 'auto'", () => {
    expect(resolveArtifactLanguage('auto', 'en-US', 'epiphany', local)).toBe('en-US');
    expect(resolveArtifactLanguage('auto', 'de-DE', 'deep_research', aws)).toBe('de-DE');
  });

  it("accepts the transcript's language, with or without region, from the local extractive engine", () => {
    expect(resolveArtifactLanguage('en', 'en-US', 'deep_research', local)).toBe('en');
    expect(resolveArtifactLanguage('en-GB', 'en-US', 'podcast', local)).toBe('en-GB');
  });

  it('refuses a translation from the local engine with 422 naming what would work', () => {
    expect(() => resolveArtifactLanguage('de', 'en-US', 'epiphany', local)).toThrow(UnprocessableError);
    expect(() => resolveArtifactLanguage('de', 'en-US', 'epiphany', local)).toThrow(
      /'de' is not supported for epiphany \(the local text engine writes only in the language of the transcript\); use 'auto' or one of en-US/,
    );
  });

  it('lets LLM engines write any language, but a podcast only where there are voices', () => {
    expect(resolveArtifactLanguage('ja', 'en-US', 'deep_research', aws)).toBe('ja');
    expect(resolveArtifactLanguage('pt', 'en-US', 'podcast', aws)).toBe('pt');
    expect(resolveArtifactLanguage('de', 'en-US', 'podcast', aws)).toBe('de');
    expect(() => resolveArtifactLanguage('ja', 'en-US', 'podcast', aws)).toThrow(
      /no voices for it.*en-US, en-GB/,
    );
  });

  it('treats an artifact in en-US as answering a request for en, not for en-GB', () => {
    expect(satisfiesLanguage('auto', 'fr-FR')).toBe(true);
    expect(satisfiesLanguage('en', 'en-US')).toBe(true);
    expect(satisfiesLanguage('EN-us', 'en-US')).toBe(true);
    expect(satisfiesLanguage('en-GB', 'en-US')).toBe(false);
    expect(satisfiesLanguage('de', 'en-US')).toBe(false);
  });
});
