import { describe, expect, it } from 'vitest';
import { ExtractiveArtifactEngine } from '../../src/adapters/extractive/index.ts';
import {
  ARTIFACT_KINDS,
  type ArtifactDrafts,
  type ArtifactKind,
  artifactDraftSchemas,
  type Evidence,
  isQuoteOf,
} from '../../src/domain/artifacts.ts';
import type { ConversationSegment, Transcription } from '../../src/domain/transcript.ts';
import { GenerationFailedError } from '../../src/ports/generation-errors.ts';
import {
  meeting,
  meetingReferenceTime,
  transcriptionOf,
  unpunctuated,
} from '../fixtures/insights/meeting.ts';
import { syntheticTranscription } from '../fixtures/insights/synthetic.ts';

const engine = new ExtractiveArtifactEngine();

function generate<K extends ArtifactKind>(
  kind: K,
  source: Transcription,
  language = 'en',
): Promise<ArtifactDrafts[K]> {
  return engine.generateArtifact({
    kind,
    transcription: source,
    title: 'Planning meeting',
    language,
    reference_time: meetingReferenceTime,
  });
}

function at(start_ms: number, speaker: string, text: string): ConversationSegment {
  return { start_ms, end_ms: start_ms + 4_000, speaker, text, has_overlap: false };
}

/** Every piece of evidence of an artifact, whatever its kind (podcast lines have citations instead). */
function evidenceOf(kind: ArtifactKind, draft: ArtifactDrafts[ArtifactKind]): Evidence[] {
  if (kind === 'epiphany')
    return (draft as ArtifactDrafts['epiphany']).ideas.flatMap((idea) => idea.evidence);
  if (kind === 'deep_research') {
    const research = draft as ArtifactDrafts['deep_research'];
    return [research.research_questions, research.claims, research.gaps, research.next_steps]
      .flat()
      .flatMap((item) => item.evidence);
  }
  return [];
}

/** The texts between double quotes in a line, without the ellipsis that marks a shortened quote. */
function quotesIn(text: string): string[] {
  return [...text.matchAll(/"([^"]+)"/g)].map((match) => (match[1] ?? '').replace(/…$/, ''));
}

/**
 * The grounding property: the draft fits its schema, every evidence quote is words said in the
 * segment starting at its start_ms, and every podcast citation is a segment whose words the line quotes.
 */
function expectGrounded(
  kind: ArtifactKind,
  draft: ArtifactDrafts[ArtifactKind],
  source: Transcription,
): void {
  expect(artifactDraftSchemas[kind].safeParse(draft).success).toBe(true);
  const byStart = new Map(source.conversation_segments.map((segment) => [segment.start_ms, segment.text]));
  for (const { start_ms, quote } of evidenceOf(kind, draft)) {
    const segment = byStart.get(start_ms);
    expect(segment, `no segment starts at ${start_ms}`).toBeDefined();
    expect(isQuoteOf(quote, segment ?? ''), `"${quote}" is not in "${segment}"`).toBe(true);
  }
  if (kind !== 'podcast') return;
  const { lines } = draft as ArtifactDrafts['podcast'];
  for (const line of lines) {
    expect(line.text.length).toBeLessThanOrEqual(600);
    expect(line.text).not.toMatch(/[*_#`[\]]/);
    for (const start of line.citations) expect(byStart.has(start)).toBe(true);
    const cited = line.citations.map((start) => byStart.get(start) ?? '');
    // Titles are quoted too; every other quotation is words from a segment the line cites.
    for (const quote of quotesIn(line.text).filter((text) => text !== 'Planning meeting')) {
      expect(
        cited.some((segment) => isQuoteOf(quote, segment)),
        `"${quote}" is not in the cited segments`,
      ).toBe(true);
    }
  }
  lines.forEach((line, i) => {
    if (i > 0) expect(line.host).not.toBe(lines[i - 1]?.host);
  });
}

describe('ExtractiveArtifactEngine on a punctuated two-speaker meeting', () => {
  const source = transcriptionOf(meeting.conversation_segments);
  const epiphany = generate('epiphany', source);
  const research = generate('deep_research', source);
  const podcast = generate('podcast', source);
  const drafts = { epiphany, deep_research: research, podcast };

  it('is named local-extractive', () => {
    expect(engine.name).toBe('local-extractive');
  });

  it.each(ARTIFACT_KINDS)(
    'writes %s so that it fits its schema and every quote is words said in the segment it cites',
    async (kind) => {
      expectGrounded(kind, await drafts[kind], source);
    },
  );

  it('links the cloud vendor of the migration talk to the vendor contract of the budget talk', async () => {
    const { ideas } = await epiphany;
    const vendor = ideas.find((idea) => idea.title.toLowerCase().startsWith('vendor'));
    expect(vendor?.title).toBe('Vendor links migration and budget');
    expect(vendor?.connection).toContain('00:00:34 (Speaker 1, in the part about migration)');
    expect(vendor?.connection).toContain('00:01:21 (Speaker 1, in the part about budget)');
    expect(vendor?.evidence.map((evidence) => evidence.start_ms)).toEqual([34_400, 81_000]);
  });

  it('makes every idea a link between at least two passages that are not adjacent', async () => {
    const { ideas } = await epiphany;
    expect(ideas.length).toBeGreaterThanOrEqual(2);
    const position = new Map(meeting.conversation_segments.map((segment, i) => [segment.start_ms, i]));
    for (const idea of ideas) {
      expect(idea.evidence.length).toBeGreaterThanOrEqual(2);
      const [first, second] = idea.evidence.map((evidence) => position.get(evidence.start_ms) ?? 0);
      expect(Math.abs((second ?? 0) - (first ?? 0))).toBeGreaterThanOrEqual(2);
    }
  });

  it('points an implication at the open question that mentions the linked phrase', async () => {
    const { ideas } = await epiphany;
    const tool = ideas.find((idea) => idea.title.toLowerCase().startsWith('tool'));
    expect(tool?.implication).toContain('A question left open also touches "tool"');
    expect(tool?.implication).toContain('What about the licensing costs for the new reporting tool?');
    expect(tool?.evidence.map((evidence) => evidence.start_ms)).toContain(117_800);
  });

  it('summarises the research brief with sentences quoted verbatim from the transcript', async () => {
    const { summary } = await research;
    const quotes = quotesIn(summary);
    expect(quotes.length).toBeGreaterThanOrEqual(2);
    for (const quote of quotes) {
      expect(meeting.conversation_segments.some((segment) => segment.text.includes(quote))).toBe(true);
    }
  });

  it('lists the questions asked, the unanswered licensing question first and said to be open', async () => {
    const { research_questions } = await research;
    expect(research_questions[0]?.question).toBe(
      'What about the licensing costs for the new reporting tool?',
    );
    expect(research_questions[0]?.rationale).toContain('left open');
    expect(research_questions[0]?.evidence.map((evidence) => evidence.quote)).toContain(
      'Nobody has a quote for the reporting tool yet.',
    );
    const questions = research_questions.map((item) => item.question);
    expect(questions).toContain('How long would the schema conversion take?');
    expect(questions).not.toContain('Should we start with the migration?');
    expect(questions).not.toContain('Anything else on the budget or the migration?');
  });

  it('lists as claims the sentences with figures, comparisons, causes or decisions, never tasks or questions', async () => {
    const claims = (await research).claims.map((claim) => claim.claim);
    expect(claims).toContain(
      'The vendor asked for twenty percent more than last year, so the monitoring budget goes up to about forty thousand.',
    );
    expect(claims).toContain('Then we decided to go with Postgres for the database migration.');
    expect(claims).toContain('Postgres gives us better JSON support and the team already knows it.');
    expect(claims).not.toContain("I'll write the migration plan by next Friday.");
    for (const claim of claims) expect(claim.endsWith('?')).toBe(false);
  });

  it('lists the licensing question and the request nobody owns as gaps', async () => {
    const gaps = (await research).gaps.map((gap) => gap.gap);
    expect(gaps.some((gap) => gap.includes('What about the licensing costs'))).toBe(true);
    expect(gaps).toContain(
      'A task with no owner and no date (00:01:10): Please include a rollback plan for the migration in it.',
    );
  });

  it('turns both action items into next steps with their owners and due dates', async () => {
    const steps = (await research).next_steps.map((step) => step.step);
    expect(steps).toContain(
      "I'll write the migration plan by next Friday. (owner: Speaker 2; due 2025-03-14)",
    );
    expect(steps).toContain(
      'Priya will send the updated budget spreadsheet to finance tomorrow. (owner: Priya; due 2025-03-06)',
    );
  });

  it('opens the podcast with host_1 naming the note and its topics, citing nothing but the greeting and sign-off', async () => {
    const { lines } = await podcast;
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines[0]?.host).toBe('host_1');
    expect(lines[0]?.text).toContain('"Planning meeting"');
    expect(lines[1]?.text).toMatch(/^It covers .*budget.*migration/);
    const uncited = lines.flatMap((line, i) => (line.citations.length === 0 ? [i] : []));
    expect(uncited).toEqual([0, lines.length - 2, lines.length - 1]);
  });

  it('retells the decision, both action items and the open question with its uncertain reply', async () => {
    const lines = (await podcast).lines.map((line) => ({ text: line.text, citations: line.citations }));
    expect(lines).toContainEqual({
      text: 'Now, what was decided. At 0:58, Speaker 1 said: "Then we decided to go with Postgres for the database migration."',
      citations: [58_800],
    });
    expect(lines).toContainEqual({
      text: 'Priya takes this one, due Thursday, March 6, 2025: "Priya will send the updated budget spreadsheet to finance tomorrow."',
      citations: [112_800],
    });
    expect(lines.some((line) => line.citations[0] === 66_000 && line.text.includes('Friday, March 14'))).toBe(
      true,
    );
    expect(lines).toContainEqual({
      text: 'The reply, from Speaker 1, was: "I\'m not sure. Nobody has a quote for the reporting tool yet."',
      citations: [123_200],
    });
  });
});

describe('ExtractiveArtifactEngine on the meeting as the local recogniser writes it (lower case, unpunctuated)', () => {
  const segments = unpunctuated(meeting.conversation_segments);
  const source = transcriptionOf(segments);

  it.each(ARTIFACT_KINDS)('still writes a grounded %s', async (kind) => {
    expectGrounded(kind, await generate(kind, source), source);
  });
});

describe('ExtractiveArtifactEngine language guard', () => {
  const source = transcriptionOf(meeting.conversation_segments);

  it('refuses to write in another language than the transcript, since quoting cannot translate', async () => {
    await expect(generate('epiphany', source, 'pt-BR')).rejects.toBeInstanceOf(GenerationFailedError);
    await expect(generate('podcast', source, 'de')).rejects.toThrow(/cannot translate/);
  });

  it('accepts the same language written with or without a region, in any case', async () => {
    await expect(generate('epiphany', source, 'EN-gb')).resolves.toBeDefined();
    await expect(generate('epiphany', source, 'en-US')).resolves.toBeDefined();
  });
});

describe('ExtractiveArtifactEngine on short transcripts', () => {
  const short = transcriptionOf(
    [
      at(0, 'Speaker 1', 'We should move the launch to April because the payment provider is late.'),
      at(5_000, 'Speaker 2', 'I agree. I will tell the sales team about the new launch date.'),
      at(10_000, 'Speaker 1', 'Thanks, that works for me.'),
    ],
    15_000,
  );

  it.each(ARTIFACT_KINDS)('writes a grounded %s from three segments', async (kind) => {
    expectGrounded(kind, await generate(kind, short), short);
  });

  it('falls back to the central statements as ideas when nothing is far enough apart to link', async () => {
    const { ideas } = await generate('epiphany', short);
    expect(ideas.length).toBeGreaterThanOrEqual(1);
    expect(ideas[0]?.connection).toContain('not a link');
  });

  it('still gives the podcast a greeting, the points that were made and a sign-off', async () => {
    const { lines } = await generate('podcast', short);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.some((line) => line.citations.includes(5_000))).toBe(true);
  });

  it.each(ARTIFACT_KINDS)(
    'writes a grounded %s from a recording that only says "Okay. Yeah."',
    async (kind) => {
      const tiny = transcriptionOf([at(0, 'Speaker 1', 'Okay.'), at(4_500, 'Speaker 2', 'Yeah.')], 9_000);
      expectGrounded(kind, await generate(kind, tiny), tiny);
    },
  );

  it.each(ARTIFACT_KINDS)(
    'fails to write %s when no speech was recognised, as there is nothing to quote',
    async (kind) => {
      await expect(generate(kind, transcriptionOf([], 30_000))).rejects.toBeInstanceOf(GenerationFailedError);
      await expect(generate(kind, transcriptionOf([at(0, 'Speaker 1', '  ')], 5_000))).rejects.toBeInstanceOf(
        GenerationFailedError,
      );
    },
  );
});

describe('ExtractiveArtifactEngine on long recordings', () => {
  const long = syntheticTranscription(120);

  it.each(ARTIFACT_KINDS)(
    'writes a grounded %s for a synthetic two-hour meeting in a few seconds',
    async (kind) => {
      const started = performance.now();
      const draft = await generate(kind, long);
      expect(performance.now() - started).toBeLessThan(10_000);
      expectGrounded(kind, draft, long);
      if (kind === 'podcast') {
        const { lines } = draft as ArtifactDrafts['podcast'];
        expect(lines.length).toBeGreaterThanOrEqual(6);
        expect(lines.length).toBeLessThanOrEqual(40);
      }
      if (kind === 'epiphany') {
        for (const idea of (draft as ArtifactDrafts['epiphany']).ideas) {
          expect(idea.evidence.length).toBeGreaterThanOrEqual(2);
        }
      }
    },
    30_000,
  );
});
