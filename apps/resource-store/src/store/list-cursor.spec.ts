import { describe, expect, it } from 'vitest';
import { RpcError } from '@mcp-platform/shared-messaging';
import { decodeListCursor, encodeListCursor, PAGE_SIZE, toPage } from './list-cursor';

describe('decodeListCursor', () => {
  it('reads back the key a cursor was minted with', () => {
    expect(decodeListCursor(encodeListCursor('test://static-text'))).toBe('test://static-text');
  });

  it.each([
    ['garbage', '!!not-a-cursor!!'],
    ['the empty string', ''],
    ['base64 of something else', Buffer.from('{"offset":3}').toString('base64url')],
    ['base64 of a non-JSON text', Buffer.from('hello').toString('base64url')],
    ['a huge cursor', 'A'.repeat(100_000)],
  ])('refuses %s with INVALID_PARAMS', (_reason, cursor) => {
    expect(() => decodeListCursor(cursor)).toThrow(RpcError);
    try {
      decodeListCursor(cursor);
    } catch (error) {
      expect((error as RpcError).code).toBe('INVALID_PARAMS');
    }
  });
});

describe('toPage', () => {
  it('gives no next cursor when everything fits', () => {
    expect(toPage(['a', 'b'], (key) => key)).toEqual({ items: ['a', 'b'] });
  });

  it('cuts at the page size and points after the last item', () => {
    const rows = Array.from({ length: PAGE_SIZE + 1 }, (_, index) => `k${String(index).padStart(3, '0')}`);
    const page = toPage(rows, (key) => key);
    expect(page.items).toHaveLength(PAGE_SIZE);
    expect(decodeListCursor(page.nextCursor ?? '')).toBe(rows[PAGE_SIZE - 1]);
  });
});
