import { IdentityError, IdentityErrorCode } from '../identity.errors';

/** The shortest password accepted, in characters (NIST SP 800-63B asks for at least 8; we ask for more). */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest, so nobody makes the server hash megabytes. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Throws `Invalid` with the rule in the message when the password breaks it. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw new IdentityError(IdentityErrorCode.Invalid, `a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw new IdentityError(IdentityErrorCode.Invalid, `a password has at most ${MAX_PASSWORD_LENGTH} characters`);
}

/** Lowercase letters, digits and `. _ @ -`, 1..128, starting with a letter or digit (after lowercasing). */
const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,127}$/;

/** The stored form of a username: trimmed and lowercased, so sign-in is case-insensitive. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** Throws `Invalid` when the (normalized) username is not allowed. */
export function assertUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new IdentityError(IdentityErrorCode.Invalid, 'a username is 1..128 of a-z 0-9 . _ @ -, starting with a letter or digit');
  }
}
