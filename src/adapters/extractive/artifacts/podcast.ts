import { PODCAST_HOSTS, type PodcastScript } from '../../../domain/artifacts.ts';
import type { SentenceUnit } from '../sentences.ts';
import {
  type Analysis,
  centralUnits,
  chapterOf,
  listOf,
  replyTo,
  shortened,
  spokenDuration,
} from './analysis.ts';

type Line = PodcastScript['lines'][number];

const MAX_LINES = 40;
const MAX_LINE_CHARS = 600;
/** Quotes in a spoken line stay short enough to listen to. */
const MAX_SPOKEN_QUOTE = 280;
const MAX_KEY_POINTS = 12;
const MAX_DECISIONS = 5;
const MAX_ACTIONS = 6;
const MAX_OPEN_QUESTIONS = 3;
const MAX_TOPICS = 4;
/** The sign-off takes two lines. */
const SIGN_OFF_LINES = 2;

const KEY_POINT_TEMPLATES: ((who: string, at: string, quote: string) => string)[] = [
  (who, at, quote) => `At ${at}, ${who} said: "${quote}"`,
  (who, at, quote) => `Right, and then ${who}, at ${at}: "${quote}"`,
  (who, at, quote) => `Around ${at}, ${who} put it this way: "${quote}"`,
  (who, at, quote) => `And at ${at}, ${who} added: "${quote}"`,
];

/**
 * A two-host script that retells the conversation in its own words only where it frames (greeting,
 * transitions, sign-off) and otherwise quotes it: the key points in time order (with chapter
 * transitions in long recordings), then decisions, action items and open questions. Hosts alternate
 * line by line; every line that retells something cites the segment it quotes. Plain spoken text:
 * no markdown, times as m:ss.
 */
export function podcast(analysis: Analysis, title: string): PodcastScript {
  const lines: Line[] = [];
  const room = () => MAX_LINES - SIGN_OFF_LINES - lines.length;
  const say = (text: string, citations: number[] = []) => {
    lines.push({
      host: PODCAST_HOSTS[lines.length % 2] ?? 'host_1',
      text: shortened(spoken(text), MAX_LINE_CHARS),
      citations: [...new Set(citations)],
    });
  };
  const name = spoken(title).trim() || 'this recording';
  const speakers = new Set(analysis.units.map((unit) => unit.speaker)).size;

  say(
    `Hello and welcome. Today we are going through "${name}", a recording of ${spokenDuration(analysis.durationMs)}` +
      `${speakers > 1 ? ` with ${speakers} speakers` : ''}. Everything you hear is quoted from the transcript.`,
  );
  const topics = analysis.topics.slice(0, MAX_TOPICS);
  if (topics.length > 0) {
    say(
      `It covers ${listOf(topics.map((topic) => topic.label))}.`,
      topics.map((topic) => analysis.segments[topic.segments[0] ?? 0]?.start_ms ?? 0),
    );
  }

  const reserved = new Set<number>([
    ...analysis.decisions.map((unit) => unit.index),
    ...analysis.actionItems.map((item) => item.unit.index),
    ...analysis.openQuestions.map((unit) => unit.index),
  ]);
  const keyCount = Math.min(MAX_KEY_POINTS, Math.max(4, Math.round(analysis.ranked.order.length / 5)));
  const keyPoints = centralUnits(analysis, keyCount, reserved);
  let chapter = -1;
  keyPoints.forEach((unit, k) => {
    if (room() <= 0) return;
    const here = chapterOf(analysis, unit);
    const title = analysis.chapters[here]?.title;
    if (analysis.chapters.length > 1 && here !== chapter && title) {
      // A new chapter: name it, then the plainest template so the two do not stack connectives.
      const intro = k === 0 ? 'First up' : 'Moving on';
      say(`${intro}, ${title}. At ${at(unit.start_ms)}, ${who(unit)} said: "${quote(unit)}"`, [
        unit.start_ms,
      ]);
    } else {
      const template = KEY_POINT_TEMPLATES[k % KEY_POINT_TEMPLATES.length] ?? KEY_POINT_TEMPLATES[0];
      say(template?.(who(unit), at(unit.start_ms), quote(unit)) ?? '', [unit.start_ms]);
    }
    chapter = here;
  });

  analysis.decisions.slice(0, MAX_DECISIONS).forEach((unit, k) => {
    if (room() <= 0) return;
    say(
      k === 0
        ? `Now, what was decided. At ${at(unit.start_ms)}, ${who(unit)} said: "${quote(unit)}"`
        : `Another decision, at ${at(unit.start_ms)}: "${quote(unit)}"`,
      [unit.start_ms],
    );
  });

  analysis.actionItems.slice(0, MAX_ACTIONS).forEach((item, k) => {
    if (room() <= 0) return;
    const owner = item.owner ? `${item.owner} takes this one` : 'No owner was named for this one';
    const due = item.due_date ? `, due ${spokenDate(item.due_date)}` : '';
    say(`${k === 0 ? 'On to the action items. ' : ''}${owner}${due}: "${quote(item.unit)}"`, [
      item.unit.start_ms,
    ]);
  });

  analysis.openQuestions.slice(0, MAX_OPEN_QUESTIONS).forEach((unit, k) => {
    if (room() <= 0) return;
    say(
      `${k === 0 ? 'And one thing stayed open.' : 'Another open question.'} At ${at(unit.start_ms)}, ${who(unit)} asked: "${quote(unit)}"`,
      [unit.start_ms],
    );
    // The reply's first sentences said in one breath: "I'm not sure. Nobody has a quote yet."
    const [reply, ...more] = replyTo(analysis, unit, 2);
    if (reply && room() > 0) {
      const same = more.filter((next) => next.segmentIndex === reply.segmentIndex);
      const text = shortened(
        [reply, ...same]
          .map((sentence) => sentence.text)
          .join(' ')
          .replace(/"/g, ' '),
        MAX_SPOKEN_QUOTE,
      );
      say(`The reply, from ${who(reply)}, was: "${text}"`, [reply.start_ms]);
    }
  });

  say(
    `That's our recap of "${name}". The timestamps point to the full conversation if you want to hear more.`,
  );
  say('Thanks for listening, and see you next time.');
  return { lines };
}

function who(unit: SentenceUnit): string {
  return unit.speaker.trim() || 'someone';
}

function quote(unit: SentenceUnit): string {
  // Inner double quotes would end the quotation early; they read as nothing.
  return shortened(unit.text.replace(/"/g, ' '), MAX_SPOKEN_QUOTE);
}

/** m:ss, or h:mm:ss past the hour: easy to read aloud. */
function at(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** "2025-03-14" → "Friday, March 14, 2025". */
function spokenDate(iso: string): string {
  const date = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleDateString('en-US', {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** No markdown or markup for a voice to stumble over. */
function spoken(text: string): string {
  return text
    .replace(/[*_#`[\]<>|~]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
