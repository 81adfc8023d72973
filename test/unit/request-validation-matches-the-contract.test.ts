import { describe, expect, it } from 'vitest';
import {
  askBody,
  createCollectionBody,
  submitTranscriptionBody,
  updateCollectionBody,
  updateNoteBody,
} from '../../src/http/schemas.ts';
import { satisfiesContract } from '../support/contract.ts';

const EMOJI = '\u{1F600}';
const submission = { content_type: 'audio/wav', size_bytes: 1000 };

/** Values on either side of each limit: the edge (zod) and the contract (JSON Schema) must agree. */
const TITLES = [
  'x',
  'x'.repeat(200),
  EMOJI.repeat(200),
  `${'x'.repeat(199)}${EMOJI}`,
  ' spaced ',
  'x'.repeat(201),
  EMOJI.repeat(201),
  `${'x'.repeat(200)} `,
  '',
  '   ',
];
const SPEAKER_NAMES = [
  'Alice',
  'Ann-Marie <ann@example.com> & co -> ok',
  EMOJI.repeat(100),
  'x'.repeat(101),
  `${'x'.repeat(100)} `,
  'Alice\nBob',
  'Ann --> Bob',
  'Tab\there',
  'Bell\u0007',
  'Next\u0085line',
  'Line\u2028separator',
  '',
  '  ',
];
const COLLECTION_NAMES = [
  'Product',
  'Q3 / Kunden & Partner -> 2027',
  EMOJI.repeat(100),
  ` ${'x'.repeat(99)}`,
  'x'.repeat(101),
  EMOJI.repeat(101),
  'two\nlines',
  'Tab\there',
  'Next\u0085line',
  'Line\u2028separator',
  '',
  '   ',
];
const INSTRUCTIONS = [
  'Action items only.',
  'Ingredients first,\nthen the steps.\r\nNo small talk.',
  EMOJI.repeat(1000),
  'x'.repeat(1000),
  `${'x'.repeat(999)} `,
  '',
  '   ',
  'x'.repeat(1001),
  EMOJI.repeat(1001),
  'Tab\there',
  'Bell\u0007',
  'Next\u0085line',
  'Line\u2028separator',
];
const QUESTIONS = ['Why?', EMOJI.repeat(2000), EMOJI.repeat(2001), 'x'.repeat(2001), '', '   '];

function agreement(
  values: string[],
  edge: (value: string) => boolean,
  contract: (value: string) => boolean,
): Array<{ value: string; edge: boolean; contract: boolean }> {
  return values.map((value) => ({ value, edge: edge(value), contract: contract(value) }));
}

function expectAgreement(rows: Array<{ value: string; edge: boolean; contract: boolean }>) {
  for (const row of rows) expect(row.edge, JSON.stringify(row.value)).toBe(row.contract);
  // Both sides of the limits are exercised: some values pass and some fail.
  expect(new Set(rows.map((row) => row.edge))).toEqual(new Set([true, false]));
}

describe('request validation accepts exactly what the contract accepts', () => {
  it('for titles on submitTranscription and updateNote, counting characters as sent', () => {
    expectAgreement(
      agreement(
        TITLES,
        (title) => submitTranscriptionBody.safeParse({ ...submission, title }).success,
        (title) => satisfiesContract('/components/schemas/TranscriptionRequest', { ...submission, title }),
      ),
    );
    expectAgreement(
      agreement(
        TITLES,
        (title) => updateNoteBody.safeParse({ title }).success,
        (title) => satisfiesContract('/components/schemas/UpdateNoteRequest', { title }),
      ),
    );
  });

  it('for speaker names, refusing line breaks, control characters and "-->"', () => {
    expectAgreement(
      agreement(
        SPEAKER_NAMES,
        (name) => updateNoteBody.safeParse({ speaker_names: { 'Speaker 1': name } }).success,
        (name) =>
          satisfiesContract('/components/schemas/UpdateNoteRequest', {
            speaker_names: { 'Speaker 1': name },
          }),
      ),
    );
  });

  it('for collection names on createCollection and updateCollection: one line, 1 to 100 characters', () => {
    expectAgreement(
      agreement(
        COLLECTION_NAMES,
        (name) => createCollectionBody.safeParse({ name }).success,
        (name) => satisfiesContract('/components/schemas/CreateCollectionRequest', { name }),
      ),
    );
    expectAgreement(
      agreement(
        COLLECTION_NAMES,
        (name) => updateCollectionBody.safeParse({ name }).success,
        (name) => satisfiesContract('/components/schemas/UpdateCollectionRequest', { name }),
      ),
    );
  });

  it('for collection instructions: up to 1,000 characters, line breaks but no other control characters', () => {
    expectAgreement(
      agreement(
        INSTRUCTIONS,
        (instructions) => createCollectionBody.safeParse({ name: 'Recipes', instructions }).success,
        (instructions) =>
          satisfiesContract('/components/schemas/CreateCollectionRequest', { name: 'Recipes', instructions }),
      ),
    );
    expectAgreement(
      agreement(
        INSTRUCTIONS,
        (instructions) => updateCollectionBody.safeParse({ instructions }).success,
        (instructions) => satisfiesContract('/components/schemas/UpdateCollectionRequest', { instructions }),
      ),
    );
  });

  it('for updateCollection: at least one of name and instructions, null clearing the instructions', () => {
    for (const body of [{}, { instructions: null }, { name: 'Product', instructions: null }]) {
      expect(updateCollectionBody.safeParse(body).success, JSON.stringify(body)).toBe(
        satisfiesContract('/components/schemas/UpdateCollectionRequest', body),
      );
    }
    expect(updateCollectionBody.safeParse({}).success).toBe(false);
    expect(updateCollectionBody.parse({ instructions: '  \r\n  ' })).toEqual({ instructions: null });
    expect(updateCollectionBody.parse({ instructions: ' One\r\nTwo\rThree ' })).toEqual({
      instructions: 'One\nTwo\nThree',
    });
  });

  it('for the Ask question', () => {
    expectAgreement(
      agreement(
        QUESTIONS,
        (question) => askBody.safeParse({ question }).success,
        (question) => satisfiesContract('/components/schemas/AskRequest', { question }),
      ),
    );
  });
});
