import { ownerAndDueWords } from '../action-item-words.ts';
import { madeBy } from '../engine-words.ts';
import { clock } from '../format.ts';
import { usePlayback } from '../player/hooks.ts';
import type { Playback, Player } from '../player/playback.ts';
import type { CitedText, Insights } from '../types.ts';
import { Citations } from './citations.tsx';

function CitedList({ title, items, player }: { title: string; items: CitedText[]; player: Player }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>
        {items.map((item) => (
          <li key={item.text}>
            {item.text} <Citations at={item.citations} player={player} />
          </li>
        ))}
      </ul>
    </>
  );
}

/** Action items, each with who does it and by when, where the Insights say. */
function ActionItemList({ items, player }: { items: Insights['action_items']; player: Player }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>Action items</h3>
      <ul>
        {items.map((item) => {
          const who = ownerAndDueWords(item.owner, item.due_date);
          return (
            <li key={item.text}>
              {item.text} <Citations at={item.citations} player={player} />
              {who && <span class="meta action-owner">{who}</span>}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * A note's Insights, what a person looks for first at the top: the summary, the action items and the
 * chapters (each plays from its start and brings the transcript there), then the rest.
 */
export function InsightsView({ insights, player }: { insights: Insights; player: Playback }) {
  return (
    <div class="insights">
      <p>
        {insights.summary.text} <Citations at={insights.summary.citations} player={player} />
      </p>
      <ActionItemList items={insights.action_items} player={player} />
      <ChapterList chapters={insights.chapters} player={player} />
      <CitedList title="Key points" items={insights.key_points} player={player} />
      <CitedList title="Decisions" items={insights.decisions} player={player} />
      <CitedList title="Open questions" items={insights.open_questions} player={player} />
      {insights.topics.length > 0 && (
        <>
          <h3>Topics</h3>
          <ul class="tags">
            {insights.topics.map((topic) => (
              <li key={topic.label}>
                {topic.label} <Citations at={topic.citations} player={player} />
              </li>
            ))}
          </ul>
        </>
      )}
      {(insights.speakers?.length ?? 0) > 0 && (
        <>
          <h3>Talk time</h3>
          <ul class="talk-time">
            {insights.speakers?.map((speaker) => (
              <li key={speaker.speaker}>
                {speaker.speaker}: {clock(speaker.talk_time_ms)} ({Math.round(speaker.share * 100)} %)
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="meta" title={insights.engine}>
        {madeBy(insights.engine)}
      </p>
    </div>
  );
}

/**
 * The chapters: each plays from its start and brings the transcript there; the one playing is marked
 * (this list alone re-renders, and only when the chapter changes).
 */
function ChapterList({ chapters, player }: { chapters: Insights['chapters']; player: Playback }) {
  const current = usePlayback(player, (p) =>
    chapters.findLastIndex((chapter) => chapter.start_ms <= p.positionMs && (p.positionMs > 0 || !p.paused)),
  );
  if (chapters.length === 0) return null;
  return (
    <>
      <h3>Chapters</h3>
      <ol class="chapters">
        {chapters.map((chapter, index) => (
          <li key={chapter.start_ms}>
            <a
              href={`#t=${chapter.start_ms}`}
              class="chapter"
              aria-current={index === current ? 'true' : undefined}
              onClick={(event) => {
                event.preventDefault();
                player.playFrom(chapter.start_ms);
              }}
            >
              <span class="at">{clock(chapter.start_ms)}</span> {chapter.title}
            </a>
          </li>
        ))}
      </ol>
    </>
  );
}
