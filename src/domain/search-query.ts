import { type TermAt, termsAt } from './search-terms.ts';

/** A span of a text to show as matched: UTF-16 offsets (JavaScript string indices), end exclusive. */
export interface Highlight {
  start: number;
  end: number;
}

/**
 * A search query: its terms (as the index stores them) and its quoted phrases. A phrase is a run of
 * terms that must stand next to each other (stop words between them are skipped, as the index skips
 * them) in the title or in one transcript segment. An unmatched quote is ignored.
 */
export interface SearchQuery {
  terms: string[];
  phrases: string[][];
}

export function parseQuery(q: string): SearchQuery {
  const phrases: string[][] = [];
  const loose = q.replace(/"([^"]*)"/g, (_quoted, inner: string) => {
    const phrase = termsAt(inner).map((at) => at.term);
    if (phrase.length > 0) phrases.push(phrase);
    return ' ';
  });
  const terms = [...new Set([...phrases.flat(), ...termsAt(loose).map((at) => at.term)])];
  return { terms, phrases };
}

/**
 * Where a text matches the query: every word whose term is a query term, and every phrase found in
 * full, merged into non-overlapping spans in order. `phrases` holds the indexes of the query's
 * phrases that occur in the text.
 */
export function matchesIn(
  text: string,
  query: SearchQuery,
): { highlights: Highlight[]; phrases: Set<number> } {
  const words = termsAt(text);
  const wanted = new Set(query.terms);
  const spans: Highlight[] = words
    .filter((at) => wanted.has(at.term))
    .map(({ start, end }) => ({ start, end }));
  const phrases = new Set<number>();
  query.phrases.forEach((phrase, index) => {
    const found = phraseSpans(words, phrase);
    if (found.length > 0) phrases.add(index);
    spans.push(...found);
  });
  return { highlights: merged(spans), phrases };
}

function phraseSpans(words: TermAt[], phrase: string[]): Highlight[] {
  const spans: Highlight[] = [];
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (phrase.every((term, k) => words[i + k]?.term === term)) {
      spans.push({ start: words[i]?.start ?? 0, end: words[i + phrase.length - 1]?.end ?? 0 });
    }
  }
  return spans;
}

/** Overlapping or touching spans become one, so a phrase reads as one highlight. */
function merged(spans: Highlight[]): Highlight[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Highlight[] = [];
  for (const span of sorted) {
    const last = out.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else out.push({ ...span });
  }
  return out;
}

/** Around this many characters of a long segment are shown, centred near its first highlight. */
const SNIPPET_CHARACTERS = 240;

/**
 * A segment's text cut to about 240 characters around its first match (at word boundaries, with "…"
 * where text was left out), and the highlights moved to the cut text.
 */
export function snippetOf(text: string, highlights: Highlight[]): { text: string; highlights: Highlight[] } {
  if (text.length <= SNIPPET_CHARACTERS) return { text, highlights };
  const first = highlights[0]?.start ?? 0;
  let from = Math.max(0, first - SNIPPET_CHARACTERS / 4);
  let to = Math.min(text.length, from + SNIPPET_CHARACTERS);
  if (from > 0) from = wordStartAfter(text, from);
  if (to < text.length) to = Math.max(wordEndBefore(text, to), from + 1);
  const prefix = from > 0 ? '…' : '';
  const suffix = to < text.length ? '…' : '';
  const shift = prefix.length - from;
  return {
    text: `${prefix}${text.slice(from, to)}${suffix}`,
    highlights: highlights
      .filter((span) => span.start >= from && span.end <= to)
      .map((span) => ({ start: span.start + shift, end: span.end + shift })),
  };
}

function wordStartAfter(text: string, index: number): number {
  const space = text.indexOf(' ', index);
  return space === -1 ? index : space + 1;
}

function wordEndBefore(text: string, index: number): number {
  const space = text.lastIndexOf(' ', index);
  return space <= 0 ? index : space;
}
