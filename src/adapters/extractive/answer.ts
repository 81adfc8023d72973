import { citedSentence, splitSentences } from '../../domain/cited-sentence.ts';
import { searchTerms } from '../../domain/search-terms.ts';
import { formatTimestamp } from '../../domain/transcript.ts';
import type { AnswerDraft, AnswerEngine, AnswerRequest, AskPassage } from '../../ports/answer-engine.ts';

/*
 * Runs inside the API's Ask Lambda: plain string code only. Nothing here (or imported from here) may
 * load wink-nlp or its model (`nlp.ts`, `sentences.ts`, ...), which would cost the function its cold start.
 */

/** Passages quoted at most; retrieval already put the best first. */
const MAX_PASSAGES = 3;
const MAX_SENTENCES_PER_PASSAGE = 2;
const MAX_QUOTE_CHARS = 400;
/** A further passage is quoted only if it matches at least this share of the best one's score. */
const MIN_RELATIVE_SCORE = 0.5;

export const NOT_COVERED_ANSWER =
  'The processed notes do not appear to cover this question: none of the passages found shares its key words.';
const PREFACE = 'Extractive answer (quoted from the notes, not interpreted):';

interface Sentence {
  text: string;
  /** Who said it. */
  speaker: string;
  position: number;
  terms: Set<string>;
}

interface Candidate {
  passage: AskPassage;
  rank: number;
  sentences: Sentence[];
  score: number;
}

/**
 * Answers without a language model: quotes the sentences of the retrieved passages that share the
 * most content words (stemmed, stop words dropped) with the question, from up to three passages, and
 * cites those passages. When no passage shares a content word, says the notes do not appear to cover
 * it and cites nothing. The answer says it is extractive.
 */
export class ExtractiveAnswerEngine implements AnswerEngine {
  readonly name = 'local-extractive';

  async answer(request: AnswerRequest): Promise<AnswerDraft> {
    return extractiveAnswer(request);
  }
}

export function extractiveAnswer({ question, passages }: AnswerRequest): AnswerDraft {
  const wanted = new Set(searchTerms(question));
  if (wanted.size === 0 || passages.length === 0) return notCovered();

  const split = passages.map((passage) =>
    passage.turns
      .flatMap((turn) => splitSentences(turn.text).map((text) => ({ text, speaker: turn.speaker })))
      .map(({ text, speaker }, position) => ({ text, speaker, position, terms: new Set(searchTerms(text)) })),
  );
  // Rarer question words tell more: "budget" found in one passage beats "team" found in all.
  const weight = new Map<string, number>();
  for (const term of wanted) {
    const found = split.filter((sentences) => sentences.some((sentence) => sentence.terms.has(term))).length;
    weight.set(term, found === 0 ? 0 : 1 + Math.log(passages.length / found));
  }
  const scoreOf = (terms: Iterable<string>) => {
    let score = 0;
    for (const term of terms) score += wanted.has(term) ? (weight.get(term) ?? 0) : 0;
    return score;
  };

  const candidates: Candidate[] = passages
    .map((passage, rank) => {
      const sentences = chooseSentences(split[rank] ?? [], wanted, scoreOf);
      const covered = new Set(sentences.flatMap((sentence) => [...sentence.terms]));
      return { passage, rank, sentences, score: scoreOf(covered) };
    })
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score || a.rank - b.rank);
  const best = candidates[0];
  if (!best) return notCovered();
  const used = candidates
    .filter((candidate) => candidate.score >= MIN_RELATIVE_SCORE * best.score)
    .slice(0, MAX_PASSAGES);

  const quoted = used.map(({ passage, sentences }) => {
    const title = passage.note_title.trim() || 'Untitled note';
    const quote = attributed(sentences);
    // The time of the quoted sentence, found as the citation's link finds it (src/domain/ask.ts), so
    // the answer and its "at" link name the same moment, not the start of the retrieved window.
    return `From "${title}" (${formatTimestamp(citedSentence(passage, quote).start_ms)}): ${quote}`;
  });
  const citations: AnswerDraft['citations'] = [];
  for (const { passage } of used) {
    if (!citations.some((c) => c.note_id === passage.note_id && c.start_ms === passage.start_ms)) {
      citations.push({ note_id: passage.note_id, start_ms: passage.start_ms });
    }
  }
  return { answer: [PREFACE, ...quoted].join(' '), citations };
}

/** Quotes with who said them: `Alice: "…" … Bob: "…"`, the speaker named again only when it changes. */
function attributed(sentences: readonly Sentence[]): string {
  return sentences
    .map((sentence, i) => {
      const quote = `"${clip(sentence.text)}"`;
      const speaker = sentence.speaker.trim();
      return speaker && sentences[i - 1]?.speaker !== sentence.speaker ? `${speaker}: ${quote}` : quote;
    })
    .join(' … ');
}

/**
 * The passage's best-matching sentence, plus a second one when it matches question words the first
 * lacks; in the order they were said.
 */
function chooseSentences(
  sentences: readonly Sentence[],
  wanted: ReadonlySet<string>,
  scoreOf: (terms: Iterable<string>) => number,
): Sentence[] {
  const ranked = sentences
    .map((sentence) => ({ sentence, score: scoreOf(sentence.terms) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.sentence.position - b.sentence.position);
  const first = ranked[0];
  if (!first) return [];
  const chosen = [first.sentence];
  const covered = new Set([...first.sentence.terms].filter((term) => wanted.has(term)));
  for (const { sentence } of ranked.slice(1)) {
    if (chosen.length >= MAX_SENTENCES_PER_PASSAGE) break;
    if ([...sentence.terms].some((term) => wanted.has(term) && !covered.has(term))) {
      chosen.push(sentence);
      for (const term of sentence.terms) if (wanted.has(term)) covered.add(term);
    }
  }
  return chosen.sort((a, b) => a.position - b.position);
}

/** Inner double quotes would end the quotation early: dropped (quotes compare without punctuation). */
function clip(text: string): string {
  const plain = text.replace(/"/g, '');
  if (plain.length <= MAX_QUOTE_CHARS) return plain;
  const cut = plain.slice(0, MAX_QUOTE_CHARS);
  const end = cut.lastIndexOf(' ');
  return `${end > 0 ? cut.slice(0, end) : cut}…`;
}

function notCovered(): AnswerDraft {
  return { answer: NOT_COVERED_ANSWER, citations: [] };
}
