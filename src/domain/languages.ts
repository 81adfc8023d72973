import type { ArtifactKind } from './artifacts.ts';
import { UnprocessableError } from './errors.ts';

/**
 * What the configured engines can produce, known without loading them (the API checks a request
 * before queueing it): the text engine writes either only in the transcript's language (the local
 * extractive engine quotes, it cannot translate) or in any language (LLMs); the speech synthesizer
 * has voices for a fixed list of languages.
 */
export interface LanguageSupport {
  text: 'transcript' | 'any';
  /** Language codes with voices, e.g. `en`, `en-GB`; a region-less code matches any region. */
  speech: readonly string[];
}

/** The primary language subtag: `pt-BR` (or `pt_BR`) -> `pt`. */
export function primaryLanguage(code: string): string {
  return code.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/** True when an artifact written in `actual` satisfies a request for `requested` (`en` accepts `en-US`). */
export function satisfiesLanguage(requested: string, actual: string): boolean {
  if (requested === 'auto' || requested.toLowerCase() === actual.toLowerCase()) return true;
  return !requested.includes('-') && primaryLanguage(requested) === primaryLanguage(actual);
}

/**
 * The language an artifact is written in: `auto` is the transcript's; an explicit code must be one
 * the engines can honour, otherwise 422 says which would work.
 */
export function resolveArtifactLanguage(
  requested: string,
  transcriptLanguage: string,
  kind: ArtifactKind,
  support: LanguageSupport,
): string {
  const language = requested === 'auto' ? transcriptLanguage || 'en' : requested;
  const writable =
    support.text === 'any' || primaryLanguage(language) === primaryLanguage(transcriptLanguage || 'en');
  const speakable = kind !== 'podcast' || canSpeak(language, support.speech);
  if (writable && speakable) return language;

  const options =
    kind === 'podcast'
      ? support.speech.filter(
          (code) => support.text === 'any' || primaryLanguage(code) === primaryLanguage(transcriptLanguage),
        )
      : support.text === 'any'
        ? ['any language code']
        : [transcriptLanguage];
  const reason = writable
    ? 'there are no voices for it'
    : 'the local text engine writes only in the language of the transcript';
  throw new UnprocessableError(
    `Language '${language}' is not supported for ${kind} (${reason}); use 'auto'${
      options.length > 0 ? ` or one of ${options.join(', ')}` : ''
    }.`,
  );
}

function canSpeak(language: string, voices: readonly string[]): boolean {
  const wanted = language.toLowerCase();
  return voices.some((code) => {
    const voice = code.toLowerCase();
    return voice === wanted || voice === primaryLanguage(wanted) || primaryLanguage(voice) === wanted;
  });
}
