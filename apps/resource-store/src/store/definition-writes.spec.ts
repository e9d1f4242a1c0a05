import { describe, expect, it } from 'vitest';
import { sameJson, touchedServers } from './definition-writes';

describe('touchedServers', () => {
  it('joins the servers before and after a write', () => {
    expect(touchedServers(['b'], ['a'])).toEqual(['a', 'b']);
  });

  it('answers every server ([]) when the item was or becomes tenant-wide', () => {
    expect(touchedServers([], ['a'])).toEqual([]);
    expect(touchedServers(['a'], [])).toEqual([]);
  });

  it('answers the new servers for a new item', () => {
    expect(touchedServers(undefined, ['a'])).toEqual(['a']);
  });
});

describe('sameJson', () => {
  it('ignores key order and undefined members', () => {
    expect(sameJson({ a: 1, b: [{ x: 1, y: undefined }] }, { b: [{ x: 1 }], a: 1 })).toBe(true);
  });

  it('sees a different value', () => {
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
  });
});
