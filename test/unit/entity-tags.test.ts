import { describe, expect, it } from 'vitest';
import {
  entityTagOf,
  matchesStrongly,
  matchesWeakly,
  parseTagCondition,
} from '../../src/domain/entity-tags.ts';
import { BadRequestError } from '../../src/domain/errors.ts';

describe('entity tags', () => {
  it('are quoted, opaque and the same for the same bytes, different for any other bytes', () => {
    const tag = entityTagOf('{"title":"A"}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(entityTagOf('{"title":"A"}')).toBe(tag);
    expect(entityTagOf('{"title":"B"}')).not.toBe(tag);
    expect(tag).not.toContain('title');
  });
});

describe('If-Match and If-None-Match values', () => {
  const current = entityTagOf('now');

  it('match strongly only an identical strong tag, in a list or alone, or *', () => {
    expect(matchesStrongly(parseTagCondition(current, 'If-Match'), current)).toBe(true);
    expect(matchesStrongly(parseTagCondition(`"old" ,, ${current}`, 'If-Match'), current)).toBe(true);
    expect(matchesStrongly(parseTagCondition('*', 'If-Match'), current)).toBe(true);
    expect(matchesStrongly(parseTagCondition('"old"', 'If-Match'), current)).toBe(false);
    expect(matchesStrongly(parseTagCondition(`W/${current}`, 'If-Match'), current)).toBe(false);
  });

  it('match weakly whatever the W/ prefix', () => {
    expect(matchesWeakly(parseTagCondition(`W/${current}`, 'If-None-Match'), current)).toBe(true);
    expect(matchesWeakly(parseTagCondition('"old"', 'If-None-Match'), current)).toBe(false);
  });

  it('are refused with a 400 naming the header when they are not * or quoted entity tags', () => {
    for (const bad of ['abc', '"open', 'W/abc', '"a" "b"', '"a"b', '"in"side"', ',', '', '**']) {
      expect(() => parseTagCondition(bad, 'If-Match'), bad).toThrow(BadRequestError);
      expect(() => parseTagCondition(bad, 'If-Match'), bad).toThrow(/If-Match/);
    }
  });
});
