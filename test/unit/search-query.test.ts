import { describe, expect, it } from 'vitest';
import { decodeSearchCursor, encodeSearchCursor, isAfter } from '../../src/domain/search-cursor.ts';
import { matchesIn, parseQuery, snippetOf } from '../../src/domain/search-query.ts';

const marked = (text: string, spans: { start: number; end: number }[]) =>
  spans.map(({ start, end }) => text.slice(start, end));

describe('search queries, highlights and snippets', () => {
  it('reads quoted phrases as runs of index terms and the rest as loose terms, ignoring an unmatched quote', () => {
    expect(parseQuery('"Cloud budgets" review "')).toEqual({
      terms: ['cloud', 'budget', 'review'],
      phrases: [['cloud', 'budget']],
    });
    expect(parseQuery('"the of" and').terms).toEqual([]);
  });

  it('highlights every matching word by its stem, and a phrase as one span across the stop words inside it', () => {
    const query = parseQuery('"budget for the review" deciding');
    const text = 'We decided the Budget for the Review, then the budget again.';
    const { highlights, phrases } = matchesIn(text, query);
    expect(marked(text, highlights)).toEqual(['decided', 'Budget for the Review', 'budget']);
    expect([...phrases]).toEqual([0]);
    expect(matchesIn('review the budget', query).phrases.size).toBe(0);
  });

  it('keeps offsets exact in text whose lower case is longer than itself', () => {
    const text = 'İstanbul office: the İzmir budget';
    const { highlights } = matchesIn(text, parseQuery('budget office'));
    expect(marked(text, highlights)).toEqual(['office', 'budget']);
  });

  it('cuts a long segment around its first match at word boundaries and moves the highlights with it', () => {
    const before = 'alpha '.repeat(60);
    const after = ' omega'.repeat(60);
    const text = `${before}the cloud budget${after}`;
    const { highlights } = matchesIn(text, parseQuery('"cloud budget"'));
    const snippet = snippetOf(text, highlights);
    expect(snippet.text.length).toBeLessThanOrEqual(242);
    expect(snippet.text.startsWith('…alpha')).toBe(true);
    expect(snippet.text.endsWith('omega…')).toBe(true);
    expect(marked(snippet.text, snippet.highlights)).toEqual(['cloud budget']);
    expect(snippetOf('short text', [{ start: 0, end: 5 }])).toEqual({
      text: 'short text',
      highlights: [{ start: 0, end: 5 }],
    });
  });
});

describe('search cursors', () => {
  const scope = { accountId: 'acc-1', q: 'budget', include_trashed: false };
  const position = { score: 2.5, note_id: '3f2b8c1e-9a4d-4e6b-8f0a-2c5d7e9b1a34' };

  it('round-trips a position for the same account and query', () => {
    expect(decodeSearchCursor(encodeSearchCursor(scope, position), scope)).toEqual(position);
  });

  it('refuses a cursor of another account, another query or other filters, and a malformed one', () => {
    const cursor = encodeSearchCursor(scope, position);
    for (const other of [
      { ...scope, accountId: 'acc-2' },
      { ...scope, q: 'budgets' },
      { ...scope, include_trashed: true },
      { ...scope, collection_id: '5b1e0c7a-2f4d-4a8e-9b3c-6d7e8f9a0b12' },
    ]) {
      expect(() => decodeSearchCursor(cursor, other)).toThrow(/another search/);
    }
    for (const bad of ['x', Buffer.from('{"k":1,"s":"1","n":"x"}').toString('base64url'), '']) {
      expect(() => decodeSearchCursor(bad, scope)).toThrow(/cursor is not valid/);
    }
  });

  it('orders results after a position by lower score, then by note ID', () => {
    expect(isAfter({ score: 2.4, note_id: 'a' }, { score: 2.5, note_id: 'z' })).toBe(true);
    expect(isAfter({ score: 2.5, note_id: 'b' }, { score: 2.5, note_id: 'a' })).toBe(true);
    expect(isAfter({ score: 2.5, note_id: 'a' }, { score: 2.5, note_id: 'a' })).toBe(false);
    expect(isAfter({ score: 2.6, note_id: 'z' }, { score: 2.5, note_id: 'a' })).toBe(false);
  });
});
