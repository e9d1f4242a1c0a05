import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isKnownBrowser, knownBrowserCookie, knownBrowserCookieName } from './known-browser';

const KEY = randomBytes(32);
const NAME = knownBrowserCookieName(false);

/** The cookie a browser sends back after `Set-Cookie: value`. */
function sentBack(setCookie: string): string {
  return setCookie.split(';')[0] ?? '';
}

describe(knownBrowserCookie, () => {
  it('proves the browser signed in as that user (any case), and as no other', () => {
    const cookie = sentBack(knownBrowserCookie(KEY, undefined, { name: NAME, username: 'demo', secure: false, path: '/oauth' }));
    expect(isKnownBrowser(KEY, cookie, NAME, 'Demo')).toBe(true);
    expect(isKnownBrowser(KEY, cookie, NAME, 'other')).toBe(false);
    expect(isKnownBrowser(randomBytes(32), cookie, NAME, 'demo')).toBe(false);
    expect(isKnownBrowser(KEY, `${NAME}=forged-forged-forged-xx`, NAME, 'demo')).toBe(false);
  });

  it('keeps the accounts known before, and is HttpOnly, SameSite=Lax, Secure over https', () => {
    const first = sentBack(knownBrowserCookie(KEY, undefined, { name: NAME, username: 'alice', secure: false, path: '/oauth' }));
    const both = knownBrowserCookie(KEY, first, { name: knownBrowserCookieName(true), username: 'bob', secure: true, path: '/oauth' });
    expect(both).toMatch(/HttpOnly/);
    expect(both).toMatch(/SameSite=Lax/);
    expect(both).toMatch(/Secure/);
    expect(both).toMatch(/Path=\/oauth/);
    const cookie = sentBack(knownBrowserCookie(KEY, first, { name: NAME, username: 'bob', secure: false, path: '/oauth' }));
    expect(isKnownBrowser(KEY, cookie, NAME, 'alice')).toBe(true);
    expect(isKnownBrowser(KEY, cookie, NAME, 'bob')).toBe(true);
  });
});
