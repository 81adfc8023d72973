import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExtractiveAnswerEngine, NOT_COVERED_ANSWER } from '../../src/adapters/extractive/answer.ts';
import { splitSentences } from '../../src/domain/cited-sentence.ts';
import { searchTerms } from '../../src/domain/search-terms.ts';
import type { AskPassage } from '../../src/ports/answer-engine.ts';

const engine = new ExtractiveAnswerEngine();

const hiring: AskPassage = {
  note_id: 'note-hiring',
  note_title: 'Hiring sync',
  start_ms: 45_000,
  end_ms: 75_000,
  text: 'We have two open roles on the team. The recruiter sends the shortlist on Monday. Salaries stay within the approved band.',
  turns: [
    {
      speaker: 'Speaker 1',
      text: 'We have two open roles on the team. The recruiter sends the shortlist on Monday. Salaries stay within the approved band.',
    },
  ],
};
const budget: AskPassage = {
  note_id: 'note-budget',
  note_title: 'Budget review',
  start_ms: 130_000,
  end_ms: 160_000,
  text: 'Okay, next item. We agreed to cut the cloud budget by ten percent. The team will move the test clusters to spot instances.',
  turns: [
    {
      speaker: 'Priya',
      text: 'Okay, next item. We agreed to cut the cloud budget by ten percent. The team will move the test clusters to spot instances.',
    },
  ],
};
const licensing: AskPassage = {
  note_id: 'note-tools',
  note_title: 'Tooling',
  start_ms: 600_000,
  end_ms: 630_000,
  text: 'The reporting tool license renews in July! Nobody knows the new price yet.',
  turns: [
    {
      speaker: 'Speaker 1',
      text: 'The reporting tool license renews in July! Nobody knows the new price yet.',
    },
  ],
};

describe('ExtractiveAnswerEngine', () => {
  it('is named local-extractive', () => {
    expect(engine.name).toBe('local-extractive');
  });

  it('quotes the sentence of the passage that answers, even when retrieval ranked another first, and cites only that passage', async () => {
    const draft = await engine.answer({
      question: 'How much did we decide to cut the cloud budget?',
      passages: [hiring, budget],
    });
    expect(draft.answer).toContain('"We agreed to cut the cloud budget by ten percent."');
    expect(draft.answer).not.toContain('recruiter');
    expect(draft.citations).toEqual([{ note_id: 'note-budget', start_ms: 130_000 }]);
  });

  it('says the answer is extractive and names the note, the time and the speaker of what it quotes', async () => {
    const { answer } = await engine.answer({
      question: 'What happens to the cloud budget?',
      passages: [budget],
    });
    expect(answer).toMatch(/extractive/i);
    expect(answer).toContain(
      'From "Budget review" (00:02:10): Priya: "We agreed to cut the cloud budget by ten percent."',
    );
  });

  it('matches word forms through stemming, so "licensing" finds "license"', async () => {
    const draft = await engine.answer({
      question: 'What about licensing for reporting?',
      passages: [hiring, budget, licensing],
    });
    expect(draft.answer).toContain('"The reporting tool license renews in July!"');
    expect(draft.citations).toEqual([{ note_id: 'note-tools', start_ms: 600_000 }]);
  });

  it('quotes from at most three passages and cites each one it quotes', async () => {
    const passages = [1, 2, 3, 4, 5].map((n) => ({
      ...budget,
      note_id: `note-${n}`,
      note_title: `Budget ${n}`,
      start_ms: n * 1_000,
    }));
    const draft = await engine.answer({ question: 'cloud budget cut', passages });
    expect(draft.citations).toHaveLength(3);
    for (const citation of draft.citations) {
      const title = `Budget ${citation.note_id.replace('note-', '')}`;
      expect(draft.answer).toContain(`From "${title}"`);
    }
  });

  it('leaves out a passage that matches far less than the best one', async () => {
    const draft = await engine.answer({
      question: 'What did the recruiter say about the shortlist for the open roles?',
      passages: [budget, hiring],
    });
    expect(draft.citations).toEqual([{ note_id: 'note-hiring', start_ms: 45_000 }]);
  });

  it('answers that the notes do not cover the question, citing nothing, when no passage shares a content word', async () => {
    const draft = await engine.answer({
      question: 'What is the capital of France?',
      passages: [hiring, budget],
    });
    expect(draft).toEqual({ answer: NOT_COVERED_ANSWER, citations: [] });
    expect(draft.answer).toMatch(/do not appear to cover/);
  });

  it('answers the same when the question has only stop words or nothing was retrieved', async () => {
    expect(await engine.answer({ question: 'What did they say about it?', passages: [budget] })).toEqual({
      answer: NOT_COVERED_ANSWER,
      citations: [],
    });
    expect(await engine.answer({ question: 'cloud budget', passages: [] })).toEqual({
      answer: NOT_COVERED_ANSWER,
      citations: [],
    });
  });

  it('never cites a passage it was not given', async () => {
    const given = [hiring, budget, licensing];
    const questions = [
      'cloud budget',
      'open roles and salaries',
      'when does the license renew',
      'spot instances for the test clusters',
      'team',
      'nothing relevant here at all',
    ];
    for (const question of questions) {
      const { citations } = await engine.answer({ question, passages: given });
      for (const citation of citations) {
        expect(given).toContainEqual(expect.objectContaining(citation));
      }
    }
  });
});

describe('ExtractiveAnswerEngine text handling', () => {
  it('keeps content words, stemmed, and drops stop words and question framing', () => {
    expect(searchTerms('What did we discuss about the budgets for licensing?')).toEqual(['budget', 'licens']);
  });

  it('splits passages into sentences at sentence punctuation and line breaks', () => {
    expect(splitSentences('One thing. Another one? Yes!\nA new line… and more')).toEqual([
      'One thing.',
      'Another one?',
      'Yes!',
      'A new line…',
      'and more',
    ]);
  });
});

describe('ExtractiveAnswerEngine in the API Lambda', () => {
  it('loads neither wink-nlp nor the NLP model, directly or through anything it imports', () => {
    const seen = new Set<string>();
    const imports: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^\s*import\s+(?!type\b)[^'"]*['"]([^'"]+)['"]/gm)) {
        const specifier = match[1] ?? '';
        imports.push(specifier);
        if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      }
    };
    visit(fileURLToPath(new URL('../../src/adapters/extractive/answer.ts', import.meta.url)));
    expect(imports.some((specifier) => /wink/.test(specifier))).toBe(false);
    expect([...seen].some((file) => /extractive\/(nlp|sentences)\.ts$/.test(file))).toBe(false);
    expect(imports).toContain('stemmer');
  });
});

describe('the time an extractive answer gives for a quote', () => {
  it('is when the quoted sentence is said, not when the passage starts', async () => {
    const words = 'Okay, next item. We agreed to cut the cloud budget by ten percent.'.split(' ');
    const timed: AskPassage = {
      ...budget,
      start_ms: 0,
      turns: [
        {
          speaker: 'Priya',
          text: words.join(' '),
          start_ms: 0,
          // "We" (the quoted sentence's first word) at 13.2 s.
          word_starts: words.map((_, i) => (i < 3 ? i * 1000 : 13_200 + (i - 3) * 300)),
        },
      ],
    };
    const draft = await engine.answer({ question: 'How much was the cloud budget cut?', passages: [timed] });
    expect(draft.answer).toContain(
      'From "Budget review" (00:00:13): Priya: "We agreed to cut the cloud budget by ten percent."',
    );
    expect(draft.answer).not.toContain('(00:00:00)');
  });

  it('falls back to the turn’s start where words carry no times', async () => {
    const draft = await engine.answer({
      question: 'How much was the cloud budget cut?',
      passages: [
        {
          ...budget,
          start_ms: 0,
          turns: [{ ...budget.turns[0], speaker: 'Priya', text: budget.text, start_ms: 7_000 }],
        },
      ],
    });
    expect(draft.answer).toContain('(00:00:07)');
  });
});
