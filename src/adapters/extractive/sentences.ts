import type { ItemEntity, ItemSentence, ItemToken, ItsFunction, PartOfSpeech } from 'wink-nlp';
import type { ConversationSegment } from '../../domain/transcript.ts';
import { nlp } from './nlp.ts';
import { DATE_WORDS, FILLER } from './words.ts';

export interface UnitToken {
  /** As written. */
  text: string;
  /** Lower case, straight apostrophes. */
  lower: string;
  lemma: string;
  pos: PartOfSpeech;
  stop: boolean;
  /** Part of a DATE / TIME / DURATION entity: such words are due dates, never topics or owners. */
  temporal: boolean;
}

/** A sentence of one segment: the unit every heuristic works on, and the source of its citation. */
export interface SentenceUnit {
  /** Position in the whole transcript (time order). */
  index: number;
  segmentIndex: number;
  /** The citation: `start_ms` of the segment the sentence was spoken in. */
  start_ms: number;
  speaker: string;
  text: string;
  /** `text` lower-cased with straight apostrophes, for the pattern heuristics. */
  lower: string;
  tokens: UnitToken[];
  /** Content lemmas (nouns, proper nouns, verbs, adjectives; no stop words, filler or dates). */
  terms: string[];
}

const CONTENT_POS = new Set<PartOfSpeech>(['NOUN', 'PROPN', 'VERB', 'ADJ']);
const TEMPORAL_ENTITIES = new Set(['DATE', 'TIME', 'DURATION']);

export function normalise(text: string): string {
  return text.toLowerCase().replace(/[‘’`´]/g, "'");
}

/**
 * Splits every segment into sentences with wink-nlp. Segments are read one by one (about 0.1 ms
 * each once warm) so that each sentence keeps its own segment's `start_ms` without offset bookkeeping.
 */
export function toSentenceUnits(segments: readonly ConversationSegment[]): SentenceUnit[] {
  const { its } = nlp();
  // wink's typings declare `its.lemma` with a signature `out()` does not accept; it works at run time.
  const lemma = its.lemma as unknown as ItsFunction<string>;
  const units: SentenceUnit[] = [];
  segments.forEach((segment, segmentIndex) => {
    if (segment.text.trim() === '') return;
    const doc = nlp().readDoc(segment.text);
    const temporal = new Set<number>();
    doc.entities().each((entity: ItemEntity) => {
      if (!TEMPORAL_ENTITIES.has(String(entity.out(its.type)))) return;
      entity.tokens().each((token: ItemToken) => {
        temporal.add(token.index());
      });
    });
    doc.sentences().each((sentence: ItemSentence) => {
      const items = sentence.tokens();
      // Whole-sentence arrays: one call per property instead of one per token.
      const values = items.out();
      const lemmas = items.out(lemma) as string[];
      const tags = items.out(its.pos) as PartOfSpeech[];
      const stops = items.out(its.stopWordFlag) as unknown as boolean[];
      const tokens: UnitToken[] = [];
      items.each((token: ItemToken, k: number) => {
        const text = values[k] ?? '';
        tokens.push({
          text,
          lower: normalise(text),
          lemma: normalise(lemmas[k] ?? text),
          pos: tags[k] ?? 'X',
          stop: stops[k] === true,
          temporal: temporal.has(token.index()),
        });
      });
      if (!tokens.some((token) => /\p{L}|\p{N}/u.test(token.text))) return;
      const text = sentence.out().trim();
      units.push({
        index: units.length,
        segmentIndex,
        start_ms: segment.start_ms,
        speaker: segment.speaker,
        text,
        lower: normalise(text),
        tokens,
        terms: tokens.filter(isContent).map((token) => token.lemma),
      });
    });
  });
  return units;
}

export function isContent(token: UnitToken): boolean {
  return (
    CONTENT_POS.has(token.pos) &&
    !token.stop &&
    !token.temporal &&
    token.lemma.length > 1 &&
    /^\p{L}[\p{L}\p{N}'-]*$/u.test(token.lemma) &&
    !FILLER.has(token.lemma) &&
    !FILLER.has(token.lower) &&
    !DATE_WORDS.has(token.lemma)
  );
}

/** Whole words (tokens with a letter or digit), for length thresholds. */
export function wordCount(unit: SentenceUnit): number {
  return unit.tokens.filter((token) => token.pos !== 'PUNCT' && /\p{L}|\p{N}/u.test(token.text)).length;
}

/**
 * True when the transcript carries punctuation inside segments (Transcribe, whisper) rather than
 * the local recogniser's one-period-per-segment output; some heuristics read case and "?" only then.
 */
export function isPunctuated(segments: readonly ConversationSegment[]): boolean {
  return segments.some((segment) => /[?!,;:]/.test(segment.text) || /[.!?]\s+\S/.test(segment.text.trim()));
}
