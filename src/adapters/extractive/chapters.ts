import type { ConversationSegment } from '../../domain/transcript.ts';
import { collectPhrases, type PhraseStats, rankPhrases } from './keyphrases.ts';
import type { SentenceUnit } from './sentences.ts';
import { cosine, countVector, type SparseVector } from './vectors.ts';

export interface Chapter {
  title: string;
  start_ms: number;
  end_ms: number;
}

/** Segments compared on each side of a candidate boundary (TextTiling's block size). */
const WINDOW_SEGMENTS = 4;
const MIN_CHAPTER_MS = 60_000;
/** Long recordings: at most about this many chapters, so each stays a meaningful stretch. */
const TARGET_MAX_CHAPTERS = 10;
const MAX_TITLE_CANDIDATES = 5;

/**
 * TextTiling-style chapters: at every segment boundary, the lexical similarity of the segments just
 * before and just after it; a boundary whose similarity is a deep valley (depth above the mean
 * depth plus half its standard deviation) is a topic shift. The deepest valleys win, each chapter lasting at least a minute (or a
 * tenth of the recording). Chapters cover [0, end of recording] in order without gaps; the title is
 * the chapter's most distinctive keyphrase (TF-IDF with chapters as documents). A chapter whose
 * subjects all titled earlier chapters (a looped recording, a topic coming back) has nothing new to
 * name: it continues the chapter before, so no two chapters share a title.
 */
export function chapters(
  segments: readonly ConversationSegment[],
  units: readonly SentenceUnit[],
  durationMs: number,
): Chapter[] {
  if (units.length === 0) return [];
  const endMs = Math.max(durationMs, ...segments.map((segment) => segment.end_ms));
  const starts = boundaries(segments, units, endMs);

  const phrases = starts.map((first, k) => {
    const next = starts[k + 1] ?? segments.length;
    return collectPhrases(units.filter((unit) => unit.segmentIndex >= first && unit.segmentIndex < next));
  });
  const result: Chapter[] = [];
  starts.forEach((first, k) => {
    const next = starts[k + 1];
    const end_ms = next === undefined ? endMs : (segments[next] as ConversationSegment).start_ms;
    const title = titleOf(
      phrases,
      k,
      result.map((chapter) => chapter.title),
    );
    const previous = result.at(-1);
    if (title === null && previous) previous.end_ms = end_ms;
    else {
      result.push({
        title: title ?? 'Chapter 1',
        start_ms: k === 0 ? 0 : (segments[first] as ConversationSegment).start_ms,
        end_ms,
      });
    }
  });
  return result;
}

/** Index of the first segment of each chapter (the first is always 0). */
function boundaries(
  segments: readonly ConversationSegment[],
  units: readonly SentenceUnit[],
  endMs: number,
): number[] {
  const bags: string[][] = segments.map(() => []);
  for (const unit of units) bags[unit.segmentIndex]?.push(...unit.terms);

  const n = segments.length;
  const gap = new Array<number>(n).fill(1);
  for (let b = 1; b < n; b++) {
    const left: SparseVector = countVector(bags.slice(Math.max(0, b - WINDOW_SEGMENTS), b));
    const right: SparseVector = countVector(bags.slice(b, b + WINDOW_SEGMENTS));
    gap[b] = left.size === 0 || right.size === 0 ? 1 : cosine(left, right);
  }
  const depths: { b: number; depth: number }[] = [];
  for (let b = 1; b < n; b++) {
    const here = gap[b] ?? 1;
    let leftPeak = here;
    for (let k = b - 1; k >= 1 && (gap[k] ?? 1) >= leftPeak; k--) leftPeak = gap[k] ?? 1;
    let rightPeak = here;
    for (let k = b + 1; k < n && (gap[k] ?? 1) >= rightPeak; k++) rightPeak = gap[k] ?? 1;
    depths.push({ b, depth: leftPeak - here + (rightPeak - here) });
  }
  if (depths.length === 0) return [0];
  const mean = depths.reduce((sum, entry) => sum + entry.depth, 0) / depths.length;
  const spread = Math.sqrt(depths.reduce((sum, entry) => sum + (entry.depth - mean) ** 2, 0) / depths.length);
  // TextTiling's cutoff is mean - sd/2; spoken text is noisier than prose, so only clearly deep valleys count.
  const cutoff = mean + spread / 2;

  const minLength = Math.max(MIN_CHAPTER_MS, endMs / TARGET_MAX_CHAPTERS);
  const chosen: number[] = [0, endMs];
  const starts: number[] = [0];
  for (const { b, depth } of depths.sort((x, y) => y.depth - x.depth || x.b - y.b)) {
    if (depth <= cutoff || depth <= 0) break;
    const at = (segments[b] as ConversationSegment).start_ms;
    if (chosen.some((time) => Math.abs(time - at) < minLength)) continue;
    chosen.push(at);
    starts.push(b);
  }
  return starts.sort((x, y) => x - y);
}

/**
 * The chapter's most distinctive keyphrase not already used by an earlier chapter; null when its
 * best ones all are, "Chapter N" when it has none. Distinctive = said often here (count) and mostly
 * here (count here / count in the whole recording): a plain chapter-level IDF over a handful of
 * chapters is too coarse and lets a phrase said three times beat the chapter's real subject
 * mentioned once elsewhere.
 */
function titleOf(
  perChapter: readonly Map<string, PhraseStats>[],
  k: number,
  taken: readonly string[],
): string | null {
  const own = perChapter[k];
  if (own) {
    const total = (key: string) =>
      perChapter.reduce((sum, phrases) => sum + (phrases.get(key)?.count ?? 0), 0);
    const ranked = rankPhrases(
      own.values(),
      (stats) => (stats.count * stats.count) / Math.max(1, total(stats.key)),
      MAX_TITLE_CANDIDATES,
    );
    if (ranked.length > 0) return ranked.find((phrase) => !taken.includes(phrase.label))?.label ?? null;
  }
  return `Chapter ${taken.length + 1}`;
}
