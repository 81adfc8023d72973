import { describe, expect, it } from 'vitest';
import { negotiateCoding } from '../../src/local/content-encoding.ts';

describe('choosing how to encode a static file', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['*', 'br'],
    ['*;q=0', null],
    ['GZIP', 'gzip'],
  ])('answers %j with %j', (header, coding) => {
    expect(negotiateCoding(header)).toBe(coding);
  });
});
