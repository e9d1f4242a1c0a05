import { randomBytes } from 'node:crypto';

/** One key that seals request states: its id (the JWE `kid`) and 32 secret bytes (AES-256-GCM). */
export interface RequestStateKey {
  id: string;
  secret: Uint8Array;
}

/** `kid:secret`: an id of letters, digits, `_`, `-`, and 32 bytes in unpadded base64url (43 characters). */
const KEY_ENTRY = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{43})$/;

/** Reads one `kid:base64url-32-bytes` entry; the error names what is wrong, never the secret. */
export function parseRequestStateKey(entry: string): RequestStateKey {
  const match = KEY_ENTRY.exec(entry.trim());
  if (!match?.[1] || !match[2]) {
    throw new Error('a request state key is "<id>:<32 random bytes in base64url>" (id: 1-32 of A-Z a-z 0-9 _ -; the secret: 43 characters)');
  }
  const secret = Buffer.from(match[2], 'base64url');
  if (secret.length !== 32) throw new Error(`request state key ${match[1]}: the secret must be 32 bytes`);
  return { id: match[1], secret: new Uint8Array(secret) };
}

/** Reads a key list (the first seals, every one opens: rotation); ids must be unique. */
export function parseRequestStateKeys(entries: readonly string[]): RequestStateKey[] {
  const keys = entries.map(parseRequestStateKey);
  const ids = new Set<string>();
  for (const key of keys) {
    if (ids.has(key.id)) throw new Error(`request state key id ${key.id} is used twice`);
    ids.add(key.id);
  }
  return keys;
}

/** A fresh key entry `<id>:<secret>`, for a process that needs no other replica to open its states. */
export function generateRequestStateKey(id = 'local'): string {
  return `${id}:${randomBytes(32).toString('base64url')}`;
}
