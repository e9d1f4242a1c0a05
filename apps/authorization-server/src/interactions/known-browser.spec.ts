import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isKnownBrowser, KNOWN_BROWSER_MAX_AGE_SECONDS, knownBrowserCookie, knownBrowserCookieName } from './known-browser';

const KEY = randomBytes(32);
const NAME = knownBrowserCookieName(false);
/** The credential stamps of two accounts (`UsersService.credentialStamp`): they change with the password. */
const DEMO = 'stamp-of-demo';
const OTHER = 'stamp-of-other';
const NOW = Date.UTC(2026, 0, 1);

/** The cookie a browser sends back after `Set-Cookie: value`. */
function sentBack(setCookie: string): string {
  return setCookie.split(';')[0] ?? '';
}

function cookieFor(stamp: string, options: { before?: string; now?: number; secure?: boolean } = {}): string {
  return knownBrowserCookie(KEY, options.before, {
    name: options.secure ? knownBrowserCookieName(true) : NAME,
    stamp,
    secure: options.secure ?? false,
    path: '/oauth',
    now: options.now ?? NOW,
  });
}

describe(knownBrowserCookie, () => {
  it('proves the browser signed in to that account, and to no other', () => {
    const cookie = sentBack(cookieFor(DEMO));
    expect(isKnownBrowser(KEY, cookie, NAME, DEMO, NOW)).toBe(true);
    expect(isKnownBrowser(KEY, cookie, NAME, OTHER, NOW)).toBe(false);
    expect(isKnownBrowser(randomBytes(32), cookie, NAME, DEMO, NOW)).toBe(false);
    expect(isKnownBrowser(KEY, `${NAME}=forged-forged-forged-xx`, NAME, DEMO, NOW)).toBe(false);
  });

  it('proves nothing once the password changed (a new stamp): a cookie kept by someone who knew the old one skips no pause', () => {
    const cookie = sentBack(cookieFor('stamp-before-the-password-change'));
    expect(isKnownBrowser(KEY, cookie, NAME, 'stamp-after-the-password-change', NOW)).toBe(false);
  });

  it('proves nothing after its lifetime, whatever the browser kept: the expiry is signed, not only Max-Age', () => {
    const cookie = sentBack(cookieFor(DEMO));
    expect(isKnownBrowser(KEY, cookie, NAME, DEMO, NOW + (KNOWN_BROWSER_MAX_AGE_SECONDS - 60) * 1_000)).toBe(true);
    expect(isKnownBrowser(KEY, cookie, NAME, DEMO, NOW + (KNOWN_BROWSER_MAX_AGE_SECONDS + 1) * 1_000)).toBe(false);
    // A later expiry written over the signed one does not verify.
    const [token = ''] = cookie.slice(NAME.length + 1).split('.');
    const stretched = `${NAME}=${(NOW / 1_000 + 10 * KNOWN_BROWSER_MAX_AGE_SECONDS).toString(36)}${token.slice(token.indexOf('~'))}`;
    expect(isKnownBrowser(KEY, stretched, NAME, DEMO, NOW + (KNOWN_BROWSER_MAX_AGE_SECONDS + 1) * 1_000)).toBe(false);
  });

  it('keeps the accounts known before, drops those expired, and is HttpOnly, SameSite=Lax, Secure over https', () => {
    const first = sentBack(cookieFor(DEMO));
    const both = cookieFor(OTHER, { before: first, secure: true });
    expect(both).toMatch(/HttpOnly/);
    expect(both).toMatch(/SameSite=Lax/);
    expect(both).toMatch(/Secure/);
    expect(both).toMatch(/Path=\/oauth/);
    const cookie = sentBack(cookieFor(OTHER, { before: first }));
    expect(isKnownBrowser(KEY, cookie, NAME, DEMO, NOW)).toBe(true);
    expect(isKnownBrowser(KEY, cookie, NAME, OTHER, NOW)).toBe(true);
    // Signing in to one account again and again keeps one proof of it, the newest.
    let again = cookie;
    for (let day = 1; day <= 6; day++) again = sentBack(cookieFor(DEMO, { before: again, now: NOW + day * 86_400_000 }));
    expect(again.slice(NAME.length + 1).split('.')).toHaveLength(2);
    expect(isKnownBrowser(KEY, again, NAME, OTHER, NOW)).toBe(true);
    const later = NOW + (KNOWN_BROWSER_MAX_AGE_SECONDS + 1) * 1_000;
    const renewed = sentBack(cookieFor(OTHER, { before: cookie, now: later }));
    expect(renewed.slice(NAME.length + 1).split('.')).toHaveLength(1);
    expect(isKnownBrowser(KEY, renewed, NAME, OTHER, later)).toBe(true);
  });
});
