import { describe, expect, it } from 'vitest';
import { csrfTokenFor, isValidCsrfToken } from './oauth-secrets.service';

describe(isValidCsrfToken, () => {
  const key = Buffer.alloc(32, 7);

  it('accepts the token made for the interaction', () => {
    expect(isValidCsrfToken(key, 'uid-1', csrfTokenFor(key, 'uid-1'))).toBe(true);
  });

  it('refuses a token of another interaction or another key', () => {
    expect(isValidCsrfToken(key, 'uid-2', csrfTokenFor(key, 'uid-1'))).toBe(false);
    expect(isValidCsrfToken(Buffer.alloc(32, 8), 'uid-1', csrfTokenFor(key, 'uid-1'))).toBe(false);
  });

  it.each([undefined, '', 'x', ['a'], 42, 'y'.repeat(500)])('refuses %j', (presented) => {
    expect(isValidCsrfToken(key, 'uid-1', presented)).toBe(false);
  });
});
