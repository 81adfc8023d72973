import type { EpiphanyContent } from '../../../domain/artifacts.ts';
import { labelOf } from '../keyphrases.ts';
import { type SentenceUnit, wordCount } from '../sentences.ts';
import { cosine, type SparseVector } from '../vectors.ts';
import {
  type Analysis,
  capitalise,
  centralUnits,
  chapterOf,
  evidenceFor,
  isNavigation,
  listOf,
  shortened,
  speakerName,
  spokenDuration,
  timestamp,
} from './analysis.ts';

type Idea = EpiphanyContent['ideas'][number];

/** Sentences shorter than this ("Agreed.") make poor evidence for a link. */
const MIN_WORDS = 4;
/** Bounds of the silence after which a phrase's return counts as a link (see `minGap`). */
const MIN_GAP_MS = 30_000;
const MAX_GAP_MS = 10 * 60_000;
/** Similarity-only links: among the best-ranked sentences, at least this TF-IDF cosine. */
const SIMILARITY_CANDIDATES = 200;
const MIN_SIMILARITY = 0.35;
const MAX_EVIDENCE = 4;

interface Link {
  /** The shared key phrase ("vendor contract") or the shared words. */
  label: string;
  /** Lemmas of the label, to skip links that only repeat a chosen one's words. */
  words: Set<string>;
  /** Two or three far-apart sentences, in time order. */
  units: SentenceUnit[];
  /** Every sentence the phrase occurs in (similarity links: the linked sentences). */
  occurrences: Set<number>;
  mentions: number;
  score: number;
  kind: 'phrase' | 'similar';
}

/**
 * Non-obvious connections: sentences far apart in the conversation (different chapters or minutes
 * apart, ideally different speakers) that share a key phrase or are similar by TF-IDF, but are not
 * adjacent. Ranked by how specific the shared phrase is (IDF over segments), how far apart and how
 * similar the passages are. The texts are templates filled with what was extracted; nothing is
 * inferred. A conversation without such links yields its most central statements instead.
 */
export function epiphany(analysis: Analysis): EpiphanyContent {
  const limit = analysis.durationMs > 30 * 60_000 ? 6 : 4;
  const candidates = [...phraseLinks(analysis), ...similarityLinks(analysis)].sort(
    (a, b) => b.score - a.score || a.label.localeCompare(b.label),
  );
  const chosen: Link[] = [];
  for (const link of candidates) {
    if (chosen.length >= limit) break;
    const overlapsWords = chosen.some(
      (other) =>
        [...link.words].every((word) => other.words.has(word)) ||
        [...other.words].every((word) => link.words.has(word)),
    );
    const indices = new Set(link.units.map((unit) => unit.index));
    const overlapsPassages = chosen.some(
      (other) => other.units.filter((unit) => indices.has(unit.index)).length >= 2,
    );
    if (!overlapsWords && !overlapsPassages) chosen.push(link);
  }
  const ideas = chosen.map((link) => ideaOf(analysis, link));
  return { ideas: ideas.length > 0 ? ideas : fallbackIdeas(analysis) };
}

function quotable(unit: SentenceUnit): boolean {
  return wordCount(unit) >= MIN_WORDS && !isNavigation(unit);
}

/** How long a phrase must go unsaid for its return to count: a sixth of the recording, within bounds. */
function minGap(analysis: Analysis): number {
  return Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, analysis.durationMs / 6));
}

/** Not adjacent, and in different chapters or at least `minGap` apart. */
function farApart(analysis: Analysis, a: SentenceUnit, b: SentenceUnit): boolean {
  if (Math.abs(a.segmentIndex - b.segmentIndex) < 2) return false;
  return (
    chapterOf(analysis, a) !== chapterOf(analysis, b) || Math.abs(b.start_ms - a.start_ms) >= minGap(analysis)
  );
}

/** Better-ranked first; unranked sentences (questions, short ones) after, longer first. */
function preference(analysis: Analysis, unit: SentenceUnit): number {
  return analysis.rankOf.get(unit.index) ?? analysis.units.length + 100 / (1 + wordCount(unit));
}

function vectorOf(analysis: Analysis, unit: SentenceUnit): SparseVector {
  return analysis.vectors[unit.index] ?? new Map();
}

function phraseLinks(analysis: Analysis): Link[] {
  const links: Link[] = [];
  for (const stats of analysis.phrases.values()) {
    if (stats.count < 2 || stats.segments.size < 2) continue;
    const occurrences = [...stats.units]
      .map((index) => analysis.units[index] as SentenceUnit)
      .filter(quotable)
      .sort((a, b) => a.index - b.index);
    const units = spread(analysis, occurrences);
    if (units.length < 2) continue;
    const first = units[0] as SentenceUnit;
    const last = units.at(-1) as SentenceUnit;
    // Passages in different chapters are the least obvious links.
    const chaptersApart = new Set(units.map((unit) => chapterOf(analysis, unit))).size;
    const speakers = new Set(units.map((unit) => unit.speaker)).size;
    let similarity = 0;
    for (let k = 1; k < units.length; k++) {
      similarity += cosine(
        vectorOf(analysis, units[k - 1] as SentenceUnit),
        vectorOf(analysis, units[k] as SentenceUnit),
      );
    }
    similarity /= units.length - 1;
    const distance = Math.min(1, (2 * (last.start_ms - first.start_ms)) / Math.max(1, analysis.durationMs));
    const specificity = Math.log(1 + analysis.segments.length / stats.segments.size);
    const related = relatedUnit(analysis, stats.units) ? 1.2 : 1;
    links.push({
      label: labelOf(stats),
      words: new Set(stats.key.split(' ')),
      units,
      occurrences: stats.units,
      mentions: stats.count,
      kind: 'phrase',
      score:
        specificity *
        (1 + 0.5 * (stats.words - 1)) *
        (1 + 0.5 * (chaptersApart - 1)) *
        (speakers >= 2 ? 1.3 : 1) *
        (1 + similarity) *
        (0.5 + 0.5 * distance) *
        related,
    });
  }
  return links;
}

/**
 * Two or three occurrences far apart. The occurrences fall into episodes: a phrase that goes unsaid
 * for a while (`minGap`, or half that across a chapter boundary) and comes back starts a new one, so a
 * topic discussed continuously is not a link with itself. One sentence per episode (the best-ranked):
 * the first, the last and one between.
 */
function spread(analysis: Analysis, occurrences: readonly SentenceUnit[]): SentenceUnit[] {
  const gap = minGap(analysis);
  const episodes: SentenceUnit[][] = [];
  let previous: SentenceUnit | undefined;
  for (const unit of occurrences) {
    const silence = previous ? unit.start_ms - previous.start_ms : 0;
    const newChapter = previous !== undefined && chapterOf(analysis, unit) !== chapterOf(analysis, previous);
    const current = episodes.at(-1);
    if (!current || silence >= gap || (newChapter && silence >= gap / 2)) episodes.push([unit]);
    else current.push(unit);
    previous = unit;
  }
  if (episodes.length < 2) return [];
  let candidates = episodes.map(
    (episode) =>
      [...episode].sort((a, b) => preference(analysis, a) - preference(analysis, b))[0] as SentenceUnit,
  );
  if (candidates.length > 3) {
    candidates = [
      candidates[0] as SentenceUnit,
      candidates[Math.floor(candidates.length / 2)] as SentenceUnit,
      candidates.at(-1) as SentenceUnit,
    ];
  }
  const kept: SentenceUnit[] = [];
  for (const unit of candidates) {
    if (kept.every((other) => farApart(analysis, other, unit))) kept.push(unit);
  }
  return kept.length >= 2 ? kept : [];
}

/** Far-apart pairs among the best-ranked sentences that are similar without sharing a key phrase. */
function similarityLinks(analysis: Analysis): Link[] {
  const pool = analysis.ranked.order.slice(0, SIMILARITY_CANDIDATES).filter(quotable);
  const links: Link[] = [];
  for (let i = 0; i < pool.length; i++) {
    for (let j = i + 1; j < pool.length; j++) {
      const [a, b] = [pool[i], pool[j]].sort((x, y) => (x?.index ?? 0) - (y?.index ?? 0)) as [
        SentenceUnit,
        SentenceUnit,
      ];
      if (!farApart(analysis, a, b)) continue;
      const similarity = cosine(vectorOf(analysis, a), vectorOf(analysis, b));
      if (similarity < MIN_SIMILARITY) continue;
      const shared = sharedTerms(analysis, a, b);
      if (shared.length < 2) continue;
      links.push({
        label: `${shared[0]} and ${shared[1]}`,
        words: new Set(shared.slice(0, 2)),
        units: [a, b],
        occurrences: new Set([a.index, b.index]),
        mentions: 2,
        kind: 'similar',
        // Below a phrase link of the same strength: a shared noun phrase is a clearer link.
        score: 0.8 * similarity * Math.log(1 + analysis.segments.length / 2),
      });
    }
  }
  return links;
}

/** Content words both sentences use, the most distinctive (highest TF-IDF weight in both) first. */
function sharedTerms(analysis: Analysis, a: SentenceUnit, b: SentenceUnit): string[] {
  const va = vectorOf(analysis, a);
  const vb = vectorOf(analysis, b);
  return [...va.keys()]
    .filter((term) => vb.has(term))
    .sort((x, y) => (vb.get(y) ?? 0) * (va.get(y) ?? 0) - (vb.get(x) ?? 0) * (va.get(x) ?? 0));
}

/** A decision, action item or open question said in one of `occurrences` (a decision first). */
function relatedUnit(
  analysis: Analysis,
  occurrences: ReadonlySet<number>,
): { unit: SentenceUnit; kind: 'decision' | 'action' | 'question'; owner?: string | null } | undefined {
  const decision = analysis.decisions.find((unit) => occurrences.has(unit.index));
  if (decision) return { unit: decision, kind: 'decision' };
  const action = analysis.actionItems.find((item) => occurrences.has(item.unit.index));
  if (action) return { unit: action.unit, kind: 'action', owner: action.owner };
  const question = analysis.openQuestions.find((unit) => occurrences.has(unit.index));
  if (question) return { unit: question, kind: 'question' };
  return undefined;
}

function where(analysis: Analysis, unit: SentenceUnit, withChapter: boolean): string {
  const chapter = analysis.chapters[chapterOf(analysis, unit)];
  const part = withChapter && chapter ? `, in the part about ${chapter.title}` : '';
  return `${timestamp(unit.start_ms)} (${speakerName(unit)}${part})`;
}

function ideaOf(analysis: Analysis, link: Link): Idea {
  const chapterTitles = link.units.map((unit) => analysis.chapters[chapterOf(analysis, unit)]?.title ?? '');
  const distinctChapters = [...new Set(chapterTitles)].filter((title) => title !== '');
  const withChapter = distinctChapters.length >= 2;
  const places = link.units.map((unit) => where(analysis, unit, withChapter));
  const first = link.units[0] as SentenceUnit;
  const last = link.units.at(-1) as SentenceUnit;
  const apart = spokenDuration(last.start_ms - first.start_ms);

  const label = link.kind === 'phrase' ? `"${link.label}"` : `The words ${quotedList(link.label)}`;
  const connection =
    link.kind === 'phrase'
      ? `${label} comes up at ${places.slice(0, -1).join(', at ')} and again at ${places.at(-1)}, ${apart} apart` +
        `${link.mentions > link.units.length ? `; it is mentioned ${link.mentions} times in all` : ''}.` +
        extraShared(analysis, link)
      : `${label} come up together at ${places[0]} and again at ${places[1]}, ${apart} apart, in sentences that are similar by their vocabulary but share no key phrase.`;

  const related = relatedUnit(analysis, link.occurrences);
  const evidenceUnits = [...link.units];
  if (related && !evidenceUnits.some((unit) => unit.index === related.unit.index)) {
    if (evidenceUnits.length >= MAX_EVIDENCE) evidenceUnits.pop();
    evidenceUnits.push(related.unit);
  }
  const title =
    withChapter && !distinctChapters.includes(link.label)
      ? `${capitalise(link.label)} links ${listOf(distinctChapters.slice(0, 3))}`
      : `${capitalise(link.label)} comes back after ${apart}`;
  return {
    title: shortened(title, 200),
    connection: shortened(connection, 2000),
    implication: shortened(implication(link, related), 2000),
    evidence: evidenceFor(analysis, evidenceUnits),
  };
}

function quotedList(label: string): string {
  return listOf(label.split(' and ').map((word) => `"${word}"`));
}

/** Other content words the linked passages share besides the phrase itself. */
function extraShared(analysis: Analysis, link: Link): string {
  if (link.units.length < 2) return '';
  const [a, b] = [link.units[0] as SentenceUnit, link.units.at(-1) as SentenceUnit];
  const extra = sharedTerms(analysis, a, b)
    .filter((term) => !link.words.has(term))
    .slice(0, 3);
  return extra.length > 0
    ? ` The passages also share the word${extra.length > 1 ? 's' : ''} ${listOf(extra.map((term) => `"${term}"`))}.`
    : '';
}

function implication(link: Link, related: ReturnType<typeof relatedUnit>): string {
  const subject = link.kind === 'phrase' ? `"${link.label}"` : `these words`;
  if (!related) {
    return `Nothing decided or assigned in the conversation mentions ${subject}, so the link is worth checking: it may be a dependency or a risk nobody named.`;
  }
  const quote = `"${shortened(related.unit.text, 300)}" (${timestamp(related.unit.start_ms)})`;
  const isEvidence = link.units.some((unit) => unit.index === related.unit.index);
  switch (related.kind) {
    case 'decision':
      return isEvidence
        ? `One of these passages is a decision: ${quote}. Worth checking that it took the other passage into account.`
        : `A decision also touches ${subject}: ${quote}. Worth checking that it took both passages into account.`;
    case 'action': {
      const owner = related.owner ? `${related.owner}'s` : 'an unassigned';
      return isEvidence
        ? `One of these passages is ${owner} action item: ${quote}. Whoever does it may want the other passage in view.`
        : `${capitalise(owner)} action item also touches ${subject}: ${quote}. Whoever does it may want both passages in view.`;
    }
    case 'question':
      return isEvidence
        ? `One of these passages is a question left open: ${quote}. The other passage may help answer it.`
        : `A question left open also touches ${subject}: ${quote}. These passages may help answer it.`;
  }
}

/**
 * No distant passages share anything: the most central statements, each as an idea of its own that
 * says plainly it is not a link.
 */
function fallbackIdeas(analysis: Analysis): Idea[] {
  return centralUnits(analysis, 3).map((unit) => {
    const related = relatedUnit(analysis, new Set([unit.index]));
    const topic = analysis.topics.find((phrase) => phrase.segments.includes(unit.segmentIndex))?.label;
    return {
      title: shortened(capitalise(topic ?? unit.text.replace(/[.!?]+$/, '')), 80),
      connection: `No two distant parts of this conversation share a key phrase, so this is not a link but one of its most central statements: said at ${where(analysis, unit, false)}.`,
      implication: related
        ? `It is also ${related.kind === 'decision' ? 'a decision' : related.kind === 'action' ? 'an action item' : 'a question left open'}; worth checking what it depends on outside this note.`
        : 'Worth checking whether it connects to other notes or to what was left unsaid.',
      evidence: evidenceFor(analysis, [unit]),
    };
  });
}
