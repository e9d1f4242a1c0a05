import { describe, expect, it } from 'vitest';
import { nextCursorOf, readCursor, withCachingHints } from './method-support';

describe('readCursor', () => {
  it('reads no cursor as the first page and a string as a later one', () => {
    expect(readCursor(1, undefined)).toEqual({});
    expect(readCursor(1, { cursor: 'abc' })).toEqual({ cursor: 'abc' });
    // spec S-244: an empty string is a cursor like any other.
    expect(readCursor(1, { cursor: '' })).toEqual({ cursor: '' });
  });

  it('refuses a non-string or over-long cursor with -32602 (S-243)', () => {
    for (const cursor of [7, null, { page: 2 }, 'x'.repeat(1025)]) {
      expect(readCursor(3, { cursor }), JSON.stringify(cursor).slice(0, 20)).toEqual({
        failure: { kind: 'error', error: expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32602 }) }) },
      });
    }
  });
});

describe('withCachingHints and nextCursorOf', () => {
  const hints = { ttlMs: 5_000, cacheScope: 'private' as const };

  it('adds the hints in the modern era only (S-246)', () => {
    expect(withCachingHints('modern', { items: [] }, hints)).toEqual({ items: [], ttlMs: 5_000, cacheScope: 'private' });
    expect(withCachingHints('legacy', { items: [] }, hints)).toEqual({ items: [] });
  });

  it('names nextCursor only when there is another page (S-240)', () => {
    expect(nextCursorOf({})).toEqual({});
    expect(nextCursorOf({ nextCursor: 'n' })).toEqual({ nextCursor: 'n' });
  });
});
