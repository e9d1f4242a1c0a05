import { describe, expect, it } from 'vitest';
import { IdentityErrorCode } from '../identity.errors';
import { assertPasswordPolicy, assertUsername, normalizeUsername } from './password-policy';

describe('assertPasswordPolicy', () => {
  it('refuses fewer than 12 characters and says so', () => {
    expect(() => assertPasswordPolicy('elevenchars')).toThrow(
      expect.objectContaining({ code: IdentityErrorCode.Invalid, message: expect.stringContaining('at least 12 characters') }),
    );
  });

  it('accepts 12 characters, counting code points rather than UTF-16 units', () => {
    expect(() => assertPasswordPolicy('twelve-chars')).not.toThrow();
    expect(() => assertPasswordPolicy('🔑'.repeat(11))).toThrow(/at least 12/);
  });

  it('refuses absurdly long passwords', () => {
    expect(() => assertPasswordPolicy('x'.repeat(1025))).toThrow(/at most 1024/);
  });
});

describe('usernames', () => {
  it('normalizes to trimmed lowercase', () => {
    expect(normalizeUsername('  Alice@Example.TEST ')).toBe('alice@example.test');
  });

  it('refuses spaces, uppercase after normalization is impossible, and empty names', () => {
    expect(() => assertUsername('a b')).toThrow(expect.objectContaining({ code: IdentityErrorCode.Invalid }));
    expect(() => assertUsername('')).toThrow();
    expect(() => assertUsername('-dash-first')).toThrow();
    expect(() => assertUsername('ok.name_1')).not.toThrow();
  });
});
