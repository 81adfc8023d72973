import { distinctBy } from './distinct-items.ts';
import type { InsightsContent } from './insights.ts';
import { sameSentence, sentenceKey } from './same-sentence.ts';

type ActionItem = InsightsContent['action_items'][number];
type Topic = InsightsContent['topics'][number];
type Chapter = InsightsContent['chapters'][number];

/**
 * Every list of Insights with each item once, whichever engine wrote them: a looped recording or a
 * recap says a sentence again, and a model can list an item twice. Statements keep their first
 * occurrence with its citations (when it was first said; a repeat adds words, not content). A topic
 * is about every place it comes up, so a repeated topic adds its citations to the first. A chapter
 * titled as the one before continues it; chapters further apart keep their place in the timeline.
 */
export function distinctInsights(content: InsightsContent): InsightsContent {
  const text = (item: { text: string }) => item.text;
  return {
    ...content,
    key_points: distinctBy(content.key_points, text),
    topics: distinctBy(content.topics, (topic) => topic.label, withCitationsOf),
    action_items: distinctBy(content.action_items, text, withDetailsOf),
    decisions: distinctBy(content.decisions, text),
    open_questions: distinctBy(content.open_questions, text),
    chapters: joinedChapters(content.chapters),
  };
}

function withCitationsOf(kept: Topic, repeat: Topic): Topic {
  return { ...kept, citations: [...new Set([...kept.citations, ...repeat.citations])] };
}

/** An owner or due date the first occurrence left unstated, taken from a repeat that states it. */
function withDetailsOf(kept: ActionItem, repeat: ActionItem): ActionItem {
  return { ...kept, owner: kept.owner ?? repeat.owner, due_date: kept.due_date ?? repeat.due_date };
}

function joinedChapters(chapters: readonly Chapter[]): Chapter[] {
  const joined: Chapter[] = [];
  for (const chapter of chapters) {
    const previous = joined.at(-1);
    if (previous && sameSentence(sentenceKey(previous.title), sentenceKey(chapter.title))) {
      joined[joined.length - 1] = { ...previous, end_ms: Math.max(previous.end_ms, chapter.end_ms) };
    } else joined.push(chapter);
  }
  return joined;
}
