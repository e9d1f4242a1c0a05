import { describe, expect, it } from 'vitest';
import { RpcError } from '@mcp-platform/shared-messaging';
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor';

const position = { createdAt: new Date('2026-01-06T12:00:00.123Z'), id: 'Abc_-0123456789abcdefgh' };

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return error instanceof RpcError ? error.code : 'not an RpcError';
  }
  return undefined;
}

describe('task cursors', () => {
  it('decode to the position they were made from', () => {
    const cursor = encodeTaskCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeTaskCursor(cursor)).toEqual(position);
  });

  it('refuse garbage, other JSON and tampered fields with INVALID_PARAMS', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    for (const cursor of [
      '',
      '%%%',
      'x'.repeat(600),
      Buffer.from('not json').toString('base64url'),
      encode([1, 2]),
      encode({ c: '2026-01-06T12:00:00.123Z' }),
      encode({ c: 'yesterday', i: 'abc' }),
      encode({ c: '2026-02-30T12:00:00.000Z', i: 'abc' }),
      encode({ c: '2026-01-06T12:00:00.123Z', i: "x' OR 1=1" }),
      encode({ c: '2026-01-06T12:00:00.123Z', i: 'abc', extra: true }),
    ]) {
      expect(codeOf(() => decodeTaskCursor(cursor))).toBe('INVALID_PARAMS');
    }
  });
});
