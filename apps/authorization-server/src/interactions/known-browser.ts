import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a browser stays known after it signed in (each sign-in renews it). */
export const KNOWN_BROWSER_MAX_AGE_SECONDS = 90 * 24 * 3600;
/** Accounts one browser is remembered for (the most recent first). */
const MAX_ACCOUNTS = 5;

/** The cookie's name: `__Secure-` prefixed over https (it is path-scoped, so not `__Host-`). */
export function knownBrowserCookieName(secure: boolean): string {
  return secure ? '__Secure-known_browser' : 'known_browser';
}

/** The proof that this browser signed in as `username`: an HMAC under the server's key, 128 bits. */
export function knownBrowserToken(key: Buffer, username: string): string {
  return createHmac('sha256', key).update(`known-browser:${username.trim().toLowerCase()}`).digest('base64url').slice(0, 22);
}

function tokensOf(cookieHeader: string | undefined, name: string): string[] {
  const value = cookieHeader ? parseCookies(cookieHeader)[name] : undefined;
  return value ? value.split('.').filter((token) => /^[A-Za-z0-9_-]{22}$/.test(token)).slice(0, MAX_ACCOUNTS) : [];
}

/** Whether the request's cookie proves that this browser signed in as `username` before. */
export function isKnownBrowser(key: Buffer, cookieHeader: string | undefined, name: string, username: string): boolean {
  const expected = Buffer.from(knownBrowserToken(key, username));
  return tokensOf(cookieHeader, name).some((token) => timingSafeEqual(Buffer.from(token), expected));
}

/**
 * The `Set-Cookie` value that remembers this browser for `username` besides the accounts it was known
 * for already: HttpOnly, SameSite=Lax, Secure over https, scoped to the authorization server's path.
 */
export function knownBrowserCookie(key: Buffer, cookieHeader: string | undefined, options: { name: string; username: string; secure: boolean; path: string }): string {
  const token = knownBrowserToken(key, options.username);
  const tokens = [token, ...tokensOf(cookieHeader, options.name).filter((known) => known !== token)].slice(0, MAX_ACCOUNTS);
  return serializeCookie(options.name, tokens.join('.'), {
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
    path: options.path,
    maxAge: KNOWN_BROWSER_MAX_AGE_SECONDS,
  });
}
