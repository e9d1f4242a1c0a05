import { describe, expect, it } from 'vitest';
import { decodeListCursor, encodeListCursor } from './list-cursor';
import { WireErrorCode } from './rpc-error';

const FIELDS = { after: (value: string) => value.length > 0 && value.length <= 16 };
const invalid = expect.objectContaining({ code: WireErrorCode.InvalidParams, message: 'Invalid cursor' });
const raw = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('list cursors', () => {
  it('round-trips a position of string fields', () => {
    expect(decodeListCursor(encodeListCursor({ after: 'tool-b' }), FIELDS, 64)).toEqual({ after: 'tool-b' });
    expect(decodeListCursor(encodeListCursor({ c: '2026-01-01', i: 't1' }), { c: () => true, i: () => true }, 64)).toEqual({ c: '2026-01-01', i: 't1' });
  });

  it.each([
    ['empty', ''],
    ['too long', 'A'.repeat(65)],
    ['not base64url', 'a+b/'],
    ['not JSON', Buffer.from('{after', 'utf8').toString('base64url')],
    ['an array', raw(['tool-b'])],
    ['an extra field', raw({ after: 'tool-b', offset: '1' })],
    ['a missing field', raw({ before: 'tool-b' })],
    ['a field that is no string', raw({ after: 7 })],
    ['a field its check refuses', raw({ after: 'x'.repeat(17) })],
  ])('refuses %s as INVALID_PARAMS (S-243)', (_case, cursor) => {
    expect(() => decodeListCursor(cursor, FIELDS, 64)).toThrow(invalid);
  });
});
