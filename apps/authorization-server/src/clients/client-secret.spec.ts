import { describe, expect, it } from 'vitest';
import { hashClientSecret, isHashedClientSecret, newClientSecret, verifyClientSecret } from './client-secret';

describe(verifyClientSecret, () => {
  it('verifies a secret against its hash and nothing else', () => {
    const secret = newClientSecret();
    const hash = hashClientSecret(secret);
    expect(hash).not.toContain(secret);
    expect(isHashedClientSecret(hash)).toBe(true);
    expect(verifyClientSecret(hash, secret)).toBe(true);
    expect(verifyClientSecret(hash, `${secret}x`)).toBe(false);
    expect(verifyClientSecret(hash, '')).toBe(false);
  });

  it('never accepts a plain stored value (a stored secret must be a hash)', () => {
    expect(verifyClientSecret('plain-secret', 'plain-secret')).toBe(false);
  });

  it('makes 256-bit secrets', () => {
    expect(Buffer.from(newClientSecret(), 'base64url')).toHaveLength(32);
  });
});
