import { describe, expect, it } from 'vitest';
import { assertStreamKey } from './event-log';

describe('assertStreamKey', () => {
  it.each(['s', 'session-1', 'tenant_a.session-1.stream', 'a.b.c.d', 'x'.repeat(64), ['A9_-', 'b', 'c', 'd'].join('.')])('accepts %s', (stream) => {
    expect(() => assertStreamKey(stream)).not.toThrow();
  });

  it.each([
    ['an empty key', ''],
    ['an empty segment', 'a..b'],
    ['a leading dot', '.a'],
    ['a trailing dot', 'a.'],
    ['five segments', 'a.b.c.d.e'],
    ['a segment over 64 characters', 'x'.repeat(65)],
    ['a NATS wildcard', 'a.*'],
    ['a NATS tail wildcard', 'a.>'],
    ['a space', 'a b'],
    ['a slash', 'a/b'],
    ['a non-ASCII letter', 'sessión'],
  ])('refuses %s', (_case, stream) => {
    expect(() => assertStreamKey(stream)).toThrow(/invalid event stream key/);
  });
});
