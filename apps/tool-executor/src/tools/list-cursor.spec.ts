import { describe, expect, it } from 'vitest';
import { WireErrorCode } from '@mcp-platform/shared-messaging';
import { decodeListCursor, encodeListCursor } from './list-cursor';

describe('list cursor', () => {
  describe(encodeListCursor, () => {
    it('round-trips through decodeListCursor', () => {
      expect(decodeListCursor(encodeListCursor('test_simple_text'))).toBe('test_simple_text');
    });
    it('is URL-safe and opaque', () => {
      expect(encodeListCursor('a.b-c_d')).toMatch(/^[A-Za-z0-9_-]+$/);
    });
  });

  describe(decodeListCursor, () => {
    it.each([
      ['not base64url', 'a b'],
      ['not JSON', Buffer.from('nope').toString('base64url')],
      ['JSON of another shape', Buffer.from('{"offset":3}').toString('base64url')],
      ['an empty name', Buffer.from('{"after":""}').toString('base64url')],
      ['extra keys', Buffer.from('{"after":"a","x":1}').toString('base64url')],
      ['null', Buffer.from('null').toString('base64url')],
      ['a huge cursor', 'A'.repeat(600)],
      ['an empty string', ''],
    ])('refuses %s with INVALID_PARAMS', (_what, cursor) => {
      expect(() => decodeListCursor(cursor)).toThrow(expect.objectContaining({ code: WireErrorCode.InvalidParams, message: 'Invalid cursor' }));
    });
  });
});
