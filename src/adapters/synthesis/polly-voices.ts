/**
 * Amazon Polly voices for the two podcast hosts, by language. No SDK import: API code can check a
 * language cheaply. Every voice here supports the `neural` engine (checked against Polly's voice list,
 * 2023-2024); a language gets an entry only when it has two distinct neural voices, so e.g. en-AU
 * (Olivia only), pt-PT (Ines only) and nl-NL (Laura only) are absent.
 */
export const POLLY_HOST_VOICES: Readonly<Record<string, readonly [string, string]>> = {
  'ar-AE': ['Hala', 'Zayd'],
  'de-DE': ['Vicki', 'Daniel'],
  'en-GB': ['Amy', 'Brian'],
  'en-US': ['Joanna', 'Matthew'],
  'es-ES': ['Lucia', 'Sergio'],
  'es-MX': ['Mia', 'Andres'],
  'es-US': ['Lupe', 'Pedro'],
  'fr-CA': ['Gabrielle', 'Liam'],
  'fr-FR': ['Lea', 'Remi'],
  'it-IT': ['Bianca', 'Adriano'],
  'ja-JP': ['Kazuha', 'Takumi'],
  'pt-BR': ['Camila', 'Thiago'],
};

/**
 * The region a bare primary subtag (`en`) means, which is also used for a region of that language
 * without voices of its own (`en-AU` is read by the en-US voices).
 */
export const POLLY_DEFAULT_REGIONS: Readonly<Record<string, string>> = {
  ar: 'ar-AE',
  de: 'de-DE',
  en: 'en-US',
  es: 'es-ES',
  fr: 'fr-FR',
  it: 'it-IT',
  ja: 'ja-JP',
  pt: 'pt-BR',
};

/**
 * Language codes with voices of their own: the full tags and the bare primary subtags, sorted. Any other
 * region of one of these languages is accepted too (see `pollyHostVoices`).
 */
export function pollyLanguages(): string[] {
  return [...Object.keys(POLLY_DEFAULT_REGIONS), ...Object.keys(POLLY_HOST_VOICES)].sort();
}

/**
 * The two host voices for `language` (`en`, `en-GB`, `pt_br`: case and `_` do not matter), or null when
 * Polly has no pair of neural voices for it.
 */
export function pollyHostVoices(language: string): [string, string] | null {
  const tag = normalizeLanguage(language);
  if (tag === null) return null;
  const region = tag.region ? `${tag.primary}-${tag.region}` : undefined;
  const exact = region ? POLLY_HOST_VOICES[region] : undefined;
  const fallback = POLLY_DEFAULT_REGIONS[tag.primary];
  const voices = exact ?? (fallback ? POLLY_HOST_VOICES[fallback] : undefined);
  return voices ? [voices[0], voices[1]] : null;
}

/** `en`, `EN-gb`, `en_GB`, `es-419` -> primary subtag (lower case) and region (upper case, if any). */
export function normalizeLanguage(language: string): { primary: string; region?: string } | null {
  const parts = language.trim().replace(/_/g, '-').split('-');
  const primary = parts[0]?.toLowerCase() ?? '';
  if (!/^[a-z]{2,3}$/.test(primary)) return null;
  // A script subtag (`zh-Hant-TW`) may come before the region.
  const region = parts.slice(1).find((part) => /^(?:[a-z]{2}|\d{3})$/i.test(part));
  return region ? { primary, region: region.toUpperCase() } : { primary };
}
