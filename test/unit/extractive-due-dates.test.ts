import { describe, expect, it } from 'vitest';
import { statedDeadlines } from '../../src/adapters/extractive/dates.ts';
import { ExtractiveInsightsEngine } from '../../src/adapters/extractive/index.ts';
import type { ConversationSegment } from '../../src/domain/transcript.ts';
import { transcriptionOf } from '../fixtures/insights/meeting.ts';

/** The recording was made on Monday 23 November 2026. */
const RECORDED = Date.UTC(2026, 10, 23, 9, 30);
const engine = new ExtractiveInsightsEngine();

/** The action items the extractive engine finds in one sentence, with their due dates. */
async function dueDates(text: string, referenceTime = RECORDED): Promise<Array<string | null>> {
  const segment: ConversationSegment = {
    start_ms: 0,
    end_ms: 6_000,
    speaker: 'Speaker 1',
    text,
    has_overlap: false,
  };
  const insights = await engine.generateInsights({
    transcription: transcriptionOf([segment], 8_000),
    title: 'Planning',
    reference_time: referenceTime,
  });
  return insights.action_items.map((item) => item.due_date);
}

describe('due dates of action items from the extractive engine', () => {
  it('take "by the end of February" and not the number in "six year theory"', async () => {
    expect(
      await dueDates(
        'The six year theory holds up, and I will send the full analysis by the end of February.',
      ),
    ).toEqual(['2027-02-28']);
  });

  it('give no due date when the only date-like words are a duration, a year or a count', async () => {
    expect(await dueDates('Going by the six year theory, I will rewrite the forecast.')).toEqual([null]);
    expect(await dueDates('I will check the 2019 budget and the 500 open invoices.')).toEqual([null]);
    expect(await dueDates('Two years ago we tried this, so I will ask the vendor again.')).toEqual([null]);
    expect(await dueDates("I'll be back with the numbers in ten minutes.")).toEqual([null]);
  });

  it('take a weekday, tomorrow, next week and "in two weeks" as stated, counted from the recording day', async () => {
    expect(await dueDates('We have 3 options, and Priya will pick one by Friday.')).toEqual(['2026-11-27']);
    expect(await dueDates("I'll call the vendor tomorrow.")).toEqual(['2026-11-24']);
    expect(await dueDates('Tom will draft the hiring plan next week.')).toEqual(['2026-11-30']);
    expect(await dueDates("I'll send the report in two weeks.")).toEqual(['2026-12-07']);
    expect(await dueDates('Ana will ship the 2 fixes before March 3.')).toEqual(['2027-03-03']);
  });

  it('resolve the same words against the date of the recording, not today', async () => {
    const earlier = Date.UTC(2025, 0, 6, 9, 30); // Monday 6 January 2025
    expect(await dueDates('Priya will pick one by Friday.', earlier)).toEqual(['2025-01-10']);
    expect(await dueDates('I will send it by the end of February.', earlier)).toEqual(['2025-02-28']);
  });
});

describe('statedDeadlines', () => {
  it('marks dates after by, before, until, due and on as deadlines, and standalone weekdays as dates only', () => {
    expect(statedDeadlines('Send it by Friday', RECORDED)).toEqual([
      { date: '2026-11-27', index: 11, led: true },
    ]);
    expect(statedDeadlines('It is due on Thursday', RECORDED)).toMatchObject([
      { date: '2026-11-26', led: true },
    ]);
    expect(statedDeadlines('See you Thursday', RECORDED)).toMatchObject([{ date: '2026-11-26', led: false }]);
    expect(statedDeadlines('the six year theory', RECORDED)).toEqual([]);
  });
});
