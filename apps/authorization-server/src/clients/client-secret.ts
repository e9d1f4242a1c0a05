import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are stored only as a hash. They are 256 random bits, so a fast hash is as safe as a
 * memory-hard one (nothing to brute-force) and keeps the token endpoint cheap; the comparison is in
 * constant time. The prefix names the scheme so it can change later without guessing.
 */
const SCHEME = 'sha256$';

/** A new secret: 32 random bytes, base64url (43 characters). Shown to its owner once. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a secret. */
export function hashClientSecret(secret: string): string {
  return SCHEME + digest(secret).toString('base64url');
}

/** Whether a stored value is a hash made by `hashClientSecret` (rather than a plain secret). */
export function isHashedClientSecret(stored: string | undefined): boolean {
  return typeof stored === 'string' && stored.startsWith(SCHEME);
}

/** Whether the presented secret matches the stored hash, in constant time. */
export function verifyClientSecret(storedHash: string, presented: string): boolean {
  if (!isHashedClientSecret(storedHash)) return false;
  const expected = Buffer.from(storedHash.slice(SCHEME.length), 'base64url');
  const actual = digest(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
