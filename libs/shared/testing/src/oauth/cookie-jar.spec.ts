import { describe, expect, it } from 'vitest';
import { CookieJar } from './cookie-jar';

describe(CookieJar, () => {
  describe('header', () => {
    it('sends a host-only cookie back to the same host on any port, and not to another host', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1:3101/oauth/auth', ['sid=abc; Path=/; HttpOnly']);
      expect(jar.header('http://127.0.0.1:3101/oauth/x')).toBe('sid=abc');
      expect(jar.header('http://127.0.0.1:3000/demo/default/mcp')).toBe('sid=abc');
      expect(jar.header('http://localhost:3101/oauth/x')).toBeUndefined();
    });

    it('limits a cookie to its path and defaults the path to the request directory', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1/oauth/interaction/abc', ['_interaction=1; Path=/oauth/interaction/abc', 'dir=2']);
      expect(jar.header('http://127.0.0.1/oauth/interaction/abc')).toBe('_interaction=1; dir=2');
      expect(jar.header('http://127.0.0.1/oauth/interaction/abc/login')).toBe('_interaction=1; dir=2');
      expect(jar.header('http://127.0.0.1/oauth/interaction/abcdef')).toBe('dir=2');
      expect(jar.header('http://127.0.0.1/oauth/auth/abc')).toBeUndefined();
    });

    it('orders longer paths first', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1/', ['a=root; Path=/', 'b=deep; Path=/oauth/auth']);
      expect(jar.header('http://127.0.0.1/oauth/auth/x')).toBe('b=deep; a=root');
    });

    it('keeps Secure cookies for https and loopback hosts only', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1:3000/', ['__Host-session=s1; Path=/; Secure; HttpOnly; SameSite=Lax']);
      jar.store('http://example.test/', ['insecure=1; Secure']);
      expect(jar.header('http://127.0.0.1:3000/')).toBe('__Host-session=s1');
      expect(jar.header('http://example.test/')).toBeUndefined();
      jar.store('https://example.test/', ['secure=1; Secure']);
      expect(jar.header('https://example.test/')).toBe('secure=1');
      expect(jar.header('http://example.test/')).toBeUndefined();
    });
  });

  describe('store', () => {
    it('refuses __Host- cookies without Secure, with a Domain, or with another path', () => {
      const jar = new CookieJar();
      jar.store('https://as.example/', [
        '__Host-a=1; Path=/',
        '__Host-b=1; Secure; Path=/; Domain=as.example',
        '__Host-c=1; Secure; Path=/oauth',
        '__Host-d=1; Secure; Path=/',
      ]);
      expect(jar.list().map((cookie) => cookie.name)).toEqual(['__Host-d']);
    });

    it('refuses a Domain the host does not belong to, and a parent domain of an IP address', () => {
      const jar = new CookieJar();
      jar.store('http://as.example/', ['a=1; Domain=other.example', 'b=1; Domain=.example', 'c=1; Domain=as.example']);
      jar.store('http://127.0.0.1/', ['d=1; Domain=0.0.1']);
      expect(
        jar
          .list()
          .map((cookie) => cookie.name)
          .sort(),
      ).toEqual(['b', 'c']);
      expect(jar.header('http://sub.as.example/')).toBe('b=1; c=1');
    });

    it('drops a cookie when Max-Age runs out, and Max-Age wins over Expires', () => {
      let now = 1_000_000;
      const jar = new CookieJar(() => now);
      jar.store('http://127.0.0.1/', ['short=1; Max-Age=10; Expires=Wed, 01 Jan 2999 00:00:00 GMT', 'long=1; Max-Age=100']);
      expect(jar.header('http://127.0.0.1/')).toBe('short=1; long=1');
      now += 10_000;
      expect(jar.header('http://127.0.0.1/')).toBe('long=1');
    });

    it('deletes a cookie set again with Max-Age=0 or a past Expires', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1/', ['a=1', 'b=1']);
      jar.store('http://127.0.0.1/', ['a=; Max-Age=0', 'b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
      expect(jar.header('http://127.0.0.1/')).toBeUndefined();
    });

    it('replaces a cookie of the same name, domain and path, keeping its place in the order', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1/', ['a=1', 'b=1']);
      jar.store('http://127.0.0.1/', ['a=2']);
      expect(jar.header('http://127.0.0.1/')).toBe('a=2; b=1');
    });

    it('ignores a header without a name=value pair', () => {
      const jar = new CookieJar();
      jar.store('http://127.0.0.1/', ['justtext', '=novalue', 'ok=1; Path=/']);
      expect(jar.list().map((cookie) => cookie.name)).toEqual(['ok']);
    });
  });
});
