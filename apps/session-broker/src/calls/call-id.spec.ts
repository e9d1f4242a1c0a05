import { describe, expect, it } from 'vitest';
import { legacyCallId, modernCallId } from './call-id';

describe('legacyCallId', () => {
  it('is the same on every replica for one session and request id', () => {
    expect(legacyCallId('session-a', 7)).toBe(legacyCallId('session-a', 7));
    expect(legacyCallId('session-a', 7)).toMatch(/^l-[A-Za-z0-9_-]{43}$/);
  });

  it('differs across sessions and between 1 and "1"', () => {
    expect(legacyCallId('session-a', 1)).not.toBe(legacyCallId('session-b', 1));
    expect(legacyCallId('session-a', 1)).not.toBe(legacyCallId('session-a', '1'));
  });
});

describe('modernCallId', () => {
  it('is the new id under a prefix no legacy call id has', () => {
    expect(modernCallId('id-1')).toBe('m-id-1');
    expect(legacyCallId('session-a', 1)).not.toMatch(/^m-/);
  });
});
