import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';

/** How long a browser stays known after it signed in (each sign-in renews it). */
export const KNOWN_BROWSER_MAX_AGE_SECONDS = 90 * 24 * 3600;
/** Accounts one browser is remembered for (the most recent first). */
const MAX_ACCOUNTS = 5;
/** One proof: its expiry (seconds since the epoch, base 36), `~`, then 128 bits of HMAC. */
const TOKEN = /^([0-9a-z]{1,10})~([A-Za-z0-9_-]{22})$/;

/** The cookie's name: `__Secure-` prefixed over https (it is path-scoped, so not `__Host-`). */
export function knownBrowserCookieName(secure: boolean): string {
  return secure ? '__Secure-known_browser' : 'known_browser';
}

/**
 * The proof that this browser signed in to the account whose credentials carry `stamp`
 * (`UsersService.credentialStamp`: the account's id and password hash), until `expiresAt` (seconds):
 * an HMAC under the server's key over both. A new password (or an account deleted and created again
 * under the same name) makes a new stamp, so a cookie kept by whoever knew the old password proves
 * nothing; the expiry is signed, so a browser that keeps the cookie past its Max-Age gains nothing.
 */
function proof(key: Buffer, stamp: string, expiresAt: number): string {
  return createHmac('sha256', key).update(`known-browser:${expiresAt}:${stamp}`).digest('base64url').slice(0, 22);
}

/** The cookie's proofs that have not expired at `now` (ms), as `[expiresAt, token]`. */
function liveTokensOf(cookieHeader: string | undefined, name: string, now: number): Array<[number, string]> {
  const value = cookieHeader ? parseCookies(cookieHeader)[name] : undefined;
  const live: Array<[number, string]> = [];
  for (const token of (value ?? '').split('.').slice(0, MAX_ACCOUNTS)) {
    const match = TOKEN.exec(token);
    const expiresAt = match ? parseInt(match[1] ?? '', 36) : NaN;
    if (Number.isSafeInteger(expiresAt) && expiresAt * 1_000 > now) live.push([expiresAt, token]);
  }
  return live;
}

/** Whether `token` (expiring at `expiresAt`) is a proof for the account stamped `stamp`, compared in constant time. */
function proves(key: Buffer, stamp: string, [expiresAt, token]: [number, string]): boolean {
  const expected = Buffer.from(proof(key, stamp, expiresAt));
  const presented = Buffer.from(token.slice(token.indexOf('~') + 1));
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Whether the request's cookie proves that this browser signed in, before `now` (ms) and since its last password change, to the account stamped `stamp`. */
export function isKnownBrowser(key: Buffer, cookieHeader: string | undefined, name: string, stamp: string, now: number): boolean {
  return liveTokensOf(cookieHeader, name, now).some((token) => proves(key, stamp, token));
}

/**
 * The `Set-Cookie` value that remembers this browser for the account stamped `stamp` (for
 * `KNOWN_BROWSER_MAX_AGE_SECONDS` from `now`, in ms) besides the accounts it was known for already
 * (expired ones dropped): HttpOnly, SameSite=Lax, Secure over https, scoped to the authorization server's path.
 */
export function knownBrowserCookie(
  key: Buffer,
  cookieHeader: string | undefined,
  options: { name: string; stamp: string; secure: boolean; path: string; now: number },
): string {
  const expiresAt = Math.floor(options.now / 1_000) + KNOWN_BROWSER_MAX_AGE_SECONDS;
  const token = `${expiresAt.toString(36)}~${proof(key, options.stamp, expiresAt)}`;
  // This account's older proofs give way to the new one, so repeated sign-ins do not push the other accounts out.
  const kept = liveTokensOf(cookieHeader, options.name, options.now).filter((known) => !proves(key, options.stamp, known));
  const tokens = [token, ...kept.map(([, known]) => known)].slice(0, MAX_ACCOUNTS);
  return serializeCookie(options.name, tokens.join('.'), {
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
    path: options.path,
    maxAge: KNOWN_BROWSER_MAX_AGE_SECONDS,
  });
}
