import { type Evidence, isQuoteOf } from '../../../domain/artifacts.ts';
import { distinctBy } from '../../../domain/distinct-items.ts';
import { primaryLanguage } from '../../../domain/languages.ts';
import { type ConversationSegment, formatTimestamp, type Transcription } from '../../../domain/transcript.ts';
import { GenerationFailedError } from '../../../ports/generation-errors.ts';
import { type FoundActionItem, findActionItems } from '../action-items.ts';
import { type Chapter, chapters } from '../chapters.ts';
import { decisionsIn, isDecision } from '../decisions.ts';
import { collectPhrases, type Keyphrase, type PhraseStats, rankPhrases } from '../keyphrases.ts';
import { isQuestion, openQuestions } from '../questions.ts';
import { isPunctuated, type SentenceUnit, toSentenceUnits, wordCount } from '../sentences.ts';
import { pick, type RankedSentences, rankSentences } from '../summary.ts';
import { type SparseVector, tfidfVectors } from '../vectors.ts';

/** As in the Insights engine: a request ("can you ...?") is a task, not an open question. */
const REQUEST = /\b(can you|could you|would you|will you|please)\b/;
/** Agenda previews, wrap-ups and turn-taking: they mention every topic and assert nothing. */
const NAVIGATION =
  /\b(agenda|anything else|any other business|to recap|to sum up|in summary|wrap (?:it |this |things )?up|that covers it|moving on|next item|on the list|should we (?:start|begin|move on))\b/;
/** Evidence quotes stay under the schema's 500 characters. */
const MAX_QUOTE_CHARS = 480;
/** Language tags that say nothing about the language: no translation check is possible. */
const UNKNOWN_LANGUAGES = new Set(['', 'auto', 'und', 'mul', 'zxx']);

/**
 * Everything the artifact writers read from a transcript, computed once per request with the same
 * building blocks as the Insights engine (sentence units, TextRank, keyphrases, action items,
 * decisions, questions, chapters), so artifacts and Insights agree on what was said.
 */
export interface Analysis {
  segments: readonly ConversationSegment[];
  units: readonly SentenceUnit[];
  durationMs: number;
  referenceTime: number;
  isQuestion: (unit: SentenceUnit) => boolean;
  isDecision: (unit: SentenceUnit) => boolean;
  isRequest: (unit: SentenceUnit) => boolean;
  /** TextRank over the statements long enough to quote, best first. */
  ranked: RankedSentences;
  /** Unit index → position in `ranked.order` (absent: not ranked). */
  rankOf: ReadonlyMap<number, number>;
  /** TF-IDF vector of every unit, by unit index (questions and short sentences included). */
  vectors: readonly SparseVector[];
  phrases: ReadonlyMap<string, PhraseStats>;
  topics: readonly Keyphrase[];
  actionItems: readonly FoundActionItem[];
  decisions: readonly SentenceUnit[];
  openQuestions: readonly SentenceUnit[];
  chapters: readonly Chapter[];
}

/** Throws when there is nothing to quote: every artifact statement must quote the transcript. */
export function analyse(transcription: Transcription, referenceTime: number): Analysis {
  const segments = transcription.conversation_segments;
  const units = toSentenceUnits(segments);
  if (units.length === 0) {
    throw new GenerationFailedError('No speech was recognised in this recording: there is nothing to quote.');
  }
  const punctuated = isPunctuated(segments);
  const question = (unit: SentenceUnit) => isQuestion(unit, punctuated);
  const decision = (unit: SentenceUnit) => wordCount(unit) >= 4 && isDecision(unit, question);
  const request = (unit: SentenceUnit) => REQUEST.test(unit.lower);
  const ranked = rankSentences(units, question);
  const phrases = collectPhrases(units);
  const durationMs = Math.max(transcription.duration_ms, ...segments.map((segment) => segment.end_ms));
  return {
    segments,
    units,
    durationMs,
    referenceTime,
    isQuestion: question,
    isDecision: decision,
    isRequest: request,
    ranked,
    rankOf: new Map(ranked.order.map((unit, position) => [unit.index, position])),
    vectors: tfidfVectors(units.map((unit) => unit.terms)),
    phrases,
    topics: rankPhrases(
      phrases.values(),
      (stats) => stats.count * Math.log(1 + segments.length / Math.max(1, stats.segments.size)),
      Math.min(8, Math.max(3, Math.round(segments.length / 10) + 2)),
    ),
    actionItems: findActionItems(units, {
      punctuated,
      referenceTime,
      isDecision: decision,
      isQuestion: question,
    }),
    decisions: decisionsIn(units, decision),
    openQuestions: openQuestions(units, question, request),
    chapters: chapters(segments, units, transcription.duration_ms),
  };
}

/**
 * The most central sentences, in time order: TextRank's best `count` (no near-duplicates), or for
 * transcripts too short to rank, the longest sentences.
 */
export function centralUnits(analysis: Analysis, count: number, exclude = new Set<number>()): SentenceUnit[] {
  if (analysis.ranked.order.length > 0) return pick(analysis.ranked, count, exclude);
  return distinctBy(
    analysis.units.filter((unit) => !exclude.has(unit.index)),
    (unit) => unit.text,
  )
    .sort((a, b) => wordCount(b) - wordCount(a) || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index);
}

export function isNavigation(unit: SentenceUnit): boolean {
  return NAVIGATION.test(unit.lower);
}

/** Index of the chapter a unit was said in (0 when there are no chapters). */
export function chapterOf(analysis: Analysis, unit: SentenceUnit): number {
  let found = 0;
  analysis.chapters.forEach((chapter, k) => {
    if (chapter.start_ms <= unit.start_ms) found = k;
  });
  return found;
}

/** The sentences that follow a question as its reply: the rest of its segment, else the next segment's first sentences. */
export function replyTo(analysis: Analysis, unit: SentenceUnit, max = 2): SentenceUnit[] {
  const reply: SentenceUnit[] = [];
  let nextSegment: number | undefined;
  for (let k = unit.index + 1; k < analysis.units.length && reply.length < max; k++) {
    const candidate = analysis.units[k] as SentenceUnit;
    if (candidate.segmentIndex !== unit.segmentIndex) {
      if (nextSegment === undefined) nextSegment = candidate.segmentIndex;
      else if (candidate.segmentIndex !== nextSegment) break;
    }
    reply.push(candidate);
  }
  return reply;
}

/**
 * Evidence for a sentence: the sentence itself (cut at a word boundary when longer than the schema
 * allows), checked against its segment with `isQuoteOf`; should the sentence splitter ever disagree
 * with the segment text, the start of the segment is quoted instead.
 */
export function evidenceOf(analysis: Analysis, unit: SentenceUnit): Evidence {
  const segmentText = analysis.segments[unit.segmentIndex]?.text ?? unit.text;
  const quote = clipWords(unit.text, MAX_QUOTE_CHARS);
  if (isQuoteOf(quote, segmentText)) return { start_ms: unit.start_ms, quote };
  return { start_ms: unit.start_ms, quote: clipWords(segmentText, MAX_QUOTE_CHARS) };
}

/** Evidence for several sentences, in time order, without repeats. */
export function evidenceFor(analysis: Analysis, units: readonly SentenceUnit[]): Evidence[] {
  const seen = new Set<number>();
  return [...units]
    .sort((a, b) => a.index - b.index)
    .filter((unit) => !seen.has(unit.index) && seen.add(unit.index))
    .map((unit) => evidenceOf(analysis, unit));
}

/** At most `max` characters, cut between words (a word longer than `max` is cut inside). */
export function clipWords(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  let out = '';
  for (const word of trimmed.split(/\s+/)) {
    const next = out === '' ? word : `${out} ${word}`;
    if (next.length > max) break;
    out = next;
  }
  return out === '' ? trimmed.slice(0, max) : out;
}

/** `clipWords` with an ellipsis when something was cut: for text a reader sees as shortened. */
export function shortened(text: string, max: number): string {
  const clipped = clipWords(text, max - 1);
  return clipped.length < text.trim().length ? `${clipped.replace(/[\s,;:]+$/, '')}…` : clipped;
}

export function timestamp(ms: number): string {
  return formatTimestamp(ms);
}

export function speakerName(unit: SentenceUnit): string {
  return unit.speaker.trim() || 'an unknown speaker';
}

/** "about 45 seconds", "about 3 minutes", "about 1 hour 5 minutes". */
export function spokenDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 90) return `about ${Math.max(1, seconds)} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} minutes`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const hourText = `${hours} hour${hours === 1 ? '' : 's'}`;
  return rest === 0 ? `about ${hourText}` : `about ${hourText} ${rest} minute${rest === 1 ? '' : 's'}`;
}

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Quoting cannot change the language: a request for another language than the transcript's (by
 * primary subtag, so `en` matches `en-US`) fails. The service checks first; this is a guard.
 */
export function assertSameLanguage(requested: string, transcriptLanguage: string): void {
  const want = primaryLanguage(requested);
  const have = primaryLanguage(transcriptLanguage);
  if (UNKNOWN_LANGUAGES.has(want) || UNKNOWN_LANGUAGES.has(have) || want === have) return;
  throw new GenerationFailedError(
    `The local extractive engine quotes the transcript and cannot translate: the transcript is in ${transcriptLanguage}, ${requested} was requested.`,
  );
}
