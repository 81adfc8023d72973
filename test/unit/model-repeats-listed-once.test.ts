import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { shownSegments, validateArtifact } from '../../src/adapters/llm/artifact-validate.ts';
import { validateInsights } from '../../src/adapters/llm/validate.ts';
import type { DeepResearchContent } from '../../src/domain/artifacts.ts';
import { distinctDraft } from '../../src/domain/distinct-artifacts.ts';
import { distinctInsights } from '../../src/domain/distinct-insights.ts';
import { distinctBy } from '../../src/domain/distinct-items.ts';
import type { InsightsContent } from '../../src/domain/insights.ts';
import { sameSentence, sentenceKey } from '../../src/domain/same-sentence.ts';
import type { Transcription } from '../../src/domain/transcript.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/llm/${name}`, import.meta.url), 'utf8')) as T;
const transcription = fixture<Transcription>('transcript.json');
const same = (a: string, b: string) => sameSentence(sentenceKey(a), sentenceKey(b));

describe('telling a repeated sentence from a different one', () => {
  it('counts a sentence said again in another case, punctuation or spacing as the same', () => {
    expect(same('Then we decided to go with Postgres.', 'then  we decided to go with postgres')).toBe(true);
    expect(same('Okay.', 'okay')).toBe(true);
  });

  it('counts a rewording with the same content words but one as the same', () => {
    expect(
      same("I'll write the migration plan by next Friday.", 'I will write the migration plan by next Friday'),
    ).toBe(true);
    expect(
      same(
        'Great, please include a rollback plan for the migration in it.',
        'Please include a rollback plan for the migration in it.',
      ),
    ).toBe(true);
  });

  it('keeps sentences apart whose differing words are a figure, a date, a name or a negation', () => {
    expect(
      same(
        'The vendor asked for twenty percent more this year.',
        'The vendor asked for thirty percent more this year.',
      ),
    ).toBe(false);
    expect(
      same('I will send the migration plan by Friday.', 'I will send the migration plan by Monday.'),
    ).toBe(false);
    expect(
      same(
        'Move the launch because testing found blocking bugs in checkout, says Maria.',
        'Move the launch because testing found blocking bugs in checkout, says Tom.',
      ),
    ).toBe(false);
    expect(
      same('We will go with Postgres for the migration.', 'We will not go with Postgres for the migration.'),
    ).toBe(false);
    expect(same('Yes.', 'No.')).toBe(false);
  });

  it('lists a question and the same words said as an answer both, however short', () => {
    const text = (item: string) => item;
    expect(distinctBy(['We ship on Friday?', 'We ship on Friday.', 'we ship on friday'], text)).toEqual([
      'We ship on Friday?',
      'We ship on Friday.',
    ]);
  });

  it('keeps apart sentences that swap a word of order or amount, swap any word, or ask what the other says', () => {
    expect(
      same('Launch the beta before the security review.', 'Launch the beta after the security review.'),
    ).toBe(false);
    expect(same('We need more testers on the mobile app.', 'We need fewer testers on the mobile app.')).toBe(
      false,
    );
    expect(
      same(
        'The board will approve the new hiring plan for the design team.',
        'The board will reject the new hiring plan for the design team.',
      ),
    ).toBe(false);
    expect(
      same('Did we ship 200 units to Berlin last March?', 'We shipped 200 units to Berlin last March.'),
    ).toBe(false);
  });

  it('keeps the first of a repeated item and lets a repeat add what the first left out', () => {
    const items = [
      { text: 'Send the budget spreadsheet to finance.', owner: null as string | null, at: 1 },
      { text: 'Review the vendor contract.', owner: 'Tom', at: 2 },
      { text: 'send the budget spreadsheet to finance', owner: 'Priya', at: 3 },
    ];
    const kept = distinctBy(
      items,
      (item) => item.text,
      (first, repeat) => ({ ...first, owner: first.owner ?? repeat.owner }),
    );
    expect(kept).toEqual([
      { text: 'Send the budget spreadsheet to finance.', owner: 'Priya', at: 1 },
      { text: 'Review the vendor contract.', owner: 'Tom', at: 2 },
    ]);
  });
});

describe('a model that repeats itself', () => {
  it('gets each Insights item once: the first with its citations, a repeated topic with all of its own', () => {
    const output = fixture<InsightsContent>('insights.json');
    const [fix, tell] = output.action_items;
    output.action_items.push(
      {
        ...(fix as InsightsContent['action_items'][number]),
        text: 'fix the Android payment screen crash',
        citations: [68400],
      },
      {
        ...(tell as InsightsContent['action_items'][number]),
        text: 'Tell the marketing team about the launch date!',
      },
    );
    output.decisions.push({ text: 'The app launches on April 7', citations: [0] });
    output.topics.push({ label: 'launch date', citations: [52000] });
    output.chapters.splice(1, 0, { title: 'Launch readiness', start_ms: 15000, end_ms: 37500 });
    output.chapters[0] = { title: 'Launch readiness', start_ms: 0, end_ms: 15000 };

    const insights = distinctInsights(validateInsights(output, transcription));
    expect(insights.action_items.map((item) => item.text)).toEqual([
      'Fix the Android payment screen crash.',
      'Tell the marketing team about the launch date.',
      'Update the privacy policy for the new analytics.',
    ]);
    expect(insights.action_items[0]?.citations).toEqual([15000, 22400]);
    expect(insights.decisions).toEqual([{ text: 'The app launches on April 7.', citations: [28100] }]);
    expect(insights.topics.find((topic) => topic.label === 'Launch date')?.citations).toEqual([
      0, 28100, 52000,
    ]);
    expect(insights.topics).toHaveLength(3);
    // A chapter titled as the one before it continues it: one "Launch readiness" from 0 to 37.5 s.
    expect(insights.chapters.map((chapter) => [chapter.title, chapter.start_ms, chapter.end_ms])).toEqual([
      ['Launch readiness', 0, 37500],
      ['Privacy and analytics', 37500, 68400],
      ['Beta feedback', 68400, 79900],
    ]);
  });

  it('gets a research brief that states each claim once, and each question, gap and next step', () => {
    const output = fixture<DeepResearchContent>('deep-research.json');
    output.claims.push(
      { ...(output.claims[0] as DeepResearchContent['claims'][number]) },
      {
        claim: 'beta testers find the settings page confusing',
        evidence: [{ start_ms: 68400, quote: 'Beta testers like the new onboarding' }],
      },
    );
    output.research_questions.push({
      ...(output.research_questions[0] as DeepResearchContent['research_questions'][number]),
    });
    output.gaps.push({ gap: 'Nobody owns the privacy policy update!', evidence: [] });
    output.next_steps.push({ ...(output.next_steps[0] as DeepResearchContent['next_steps'][number]) });

    const research = distinctDraft(
      'deep_research',
      validateArtifact('deep_research', output, shownSegments(transcription.conversation_segments)),
    );
    expect(research.claims).toEqual(fixture<DeepResearchContent>('deep-research.json').claims);
    expect(research.research_questions).toHaveLength(1);
    expect(research.gaps.map((gap) => gap.gap)).toEqual([
      'Nobody owns the privacy policy update.',
      'Which Android versions crash is not stated.',
    ]);
    expect(research.next_steps).toHaveLength(1);
  });
});
