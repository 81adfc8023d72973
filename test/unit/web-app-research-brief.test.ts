import { describe, expect, it } from 'vitest';
import { textSaysQuote } from '../../web/src/quote-in-text.ts';

/**
 * The text a tree of elements shows, list items and paragraphs on lines of their own. The research
 * brief's views use no hooks, so calling its components (a fragment included) is rendering them,
 * and no DOM is needed.
 */
function shownText(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(shownText).join('');
  const { type, props } = node as { type: unknown; props: { children?: unknown } };
  if (typeof type === 'function') return shownText(type(props));
  const inner = shownText(props.children);
  return type === 'q' ? `"${inner}"` : type === 'li' || type === 'p' ? `${inner}\n` : inner;
}

/**
 * The web app's component, loaded by a path the type checker does not follow: its JSX and DOM types
 * are the web app's (web/tsconfig.json); in the service's program they would change Node's globals.
 */
const COMPONENT: string = '../../web/src/components/artifacts.tsx';
const { ArtifactView } = (await import(COMPONENT)) as {
  ArtifactView: (props: { artifact: unknown; player: unknown }) => unknown;
};

const player = { playFrom: () => {} };
const claim = 'The vendor asked for twenty percent more than last year.';
const question = 'What about the licensing costs for the new reporting tool?';
const reply = 'Nobody has a quote for the reporting tool yet.';
const brief = {
  kind: 'deep_research',
  title: 'Planning meeting: research brief',
  engine: 'local-extractive',
  content: {
    summary: '"We have two things on the agenda today."',
    research_questions: [
      {
        question,
        rationale: 'Asked at 00:01:57 by Speaker 2 and left open.',
        evidence: [
          { start_ms: 117_800, quote: question },
          { start_ms: 123_200, quote: reply },
        ],
      },
    ],
    claims: [{ claim, evidence: [{ start_ms: 93_000, quote: claim }] }],
    gaps: [],
    next_steps: [],
  },
};

describe('the web app shows a research brief', () => {
  const text = shownText(ArtifactView({ artifact: brief, player }));

  it('prints each claim once, with the moment it cites', () => {
    expect(text.split(claim)).toHaveLength(2);
    expect(text).toContain(`${claim} Play the cited moment at 1:33`);
  });

  it('quotes the evidence an item does not already say, and cites the rest', () => {
    expect(text.split(question)).toHaveLength(2);
    expect(text).toContain(`"${reply}"`);
    expect(text).toContain('2:03');
  });

  it('compares a quote with the text by its words, case and punctuation aside', () => {
    expect(
      textSaysQuote(`Unanswered (00:01:57, Speaker 2): ${question}`, 'what about the licensing costs'),
    ).toBe(true);
    expect(textSaysQuote(claim, 'twenty percent more than last')).toBe(true);
    expect(textSaysQuote(claim, 'thirty percent')).toBe(false);
    expect(textSaysQuote(claim, '...')).toBe(false);
  });
});
