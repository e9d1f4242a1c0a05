import { createHash, randomBytes } from 'node:crypto';

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.1-4.2). */
export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A fresh verifier (43 characters of base64url, 256 bits of randomness) and its S256 challenge. */
export function createPkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

/** An opaque, unguessable value for `state` (or any one-time nonce a test needs). */
export function randomState(): string {
  return randomBytes(16).toString('base64url');
}
