import { describe, expect, it } from 'vitest';
import { type BrowserFetch, csrfOf, exitUrlOf, OAuthBrowser, OAuthBrowserError, pageOf } from './oauth-browser';

const AS = 'http://127.0.0.1:3101';
const CALLBACK = 'http://127.0.0.1:43117/callback';

interface Seen {
  method: string;
  url: string;
  cookie?: string;
  body?: string;
  origin?: string;
  contentType?: string;
}

function html(body: string, headers: Record<string, string> = {}): Response {
  return new Response(`<!doctype html><html><body>${body}</body></html>`, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
}

function redirect(location: string, status = 303, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers: { location, ...headers } });
}

/**
 * A fake authorization server shaped like oidc-provider's interaction flow: the authorization
 * endpoint sends the browser to a sign-in interaction (cookie scoped to its path), then to consent,
 * then back to the client with a code. No network: the browser's fetch is this function.
 */
function fakeAuthorizationServer(password = 'pw'): { fetch: BrowserFetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetchImpl: BrowserFetch = async (input, init) => {
    const url = new URL(input);
    const headers = new Headers(init.headers);
    const body = typeof init.body === 'string' ? init.body : undefined;
    seen.push({
      method: init.method ?? 'GET',
      url: url.href,
      ...(headers.get('cookie') === null ? {} : { cookie: headers.get('cookie') as string }),
      ...(body === undefined ? {} : { body }),
      ...(headers.get('origin') === null ? {} : { origin: headers.get('origin') as string }),
      ...(headers.get('content-type') === null ? {} : { contentType: headers.get('content-type') as string }),
    });
    expect(init.redirect).toBe('manual');
    const form = new URLSearchParams(body ?? '');
    const cookie = headers.get('cookie') ?? '';
    switch (`${init.method ?? 'GET'} ${url.pathname}`) {
      case 'GET /oauth/auth':
        return redirect('/oauth/interaction/uid1', 303, { 'set-cookie': '_interaction=uid1; Path=/oauth/interaction/uid1; HttpOnly' });
      case 'GET /oauth/interaction/uid1':
        if (!cookie.includes('_interaction=uid1')) return new Response('no session', { status: 400 });
        return html(
          '<form id="login" method="post" action="/oauth/interaction/uid1/login"><input type="hidden" name="csrf" value="L1"><input name="username"><input type="password" name="password"></form>',
        );
      case 'POST /oauth/interaction/uid1/login':
        if (form.get('csrf') !== 'L1') return new Response('csrf', { status: 403 });
        if (form.get('password') !== password)
          return html(
            '<p>wrong</p><form id="login" method="post" action="/oauth/interaction/uid1/login"><input type="hidden" name="csrf" value="L1"><input name="username"><input type="password" name="password"></form>',
          );
        return redirect('/oauth/auth/uid1', 303, { 'set-cookie': '__Host-session=s1; Path=/; Secure; HttpOnly; SameSite=Lax' });
      case 'GET /oauth/auth/uid1':
        return redirect('/oauth/interaction/uid2', 302, { 'set-cookie': '_interaction=uid2; Path=/oauth/interaction/uid2; HttpOnly' });
      case 'GET /oauth/interaction/uid2':
        return html(
          '<form id="consent" method="post" action="/oauth/interaction/uid2/confirm"><input type="hidden" name="csrf" value="C2"><button type="submit">Allow</button></form>' +
            '<form id="deny" method="post" action="/oauth/interaction/uid2/abort"><input type="hidden" name="csrf" value="C2"></form>',
        );
      case 'POST /oauth/interaction/uid2/confirm':
        if (form.get('csrf') !== 'C2') return new Response('csrf', { status: 403 });
        return redirect('/oauth/auth/uid2');
      case 'POST /oauth/interaction/uid2/abort':
        return redirect(`${CALLBACK}?error=access_denied&state=s&iss=${encodeURIComponent(`${AS}/oauth`)}`);
      case 'GET /oauth/auth/uid2':
        return redirect(`${CALLBACK}?code=the-code&state=s&iss=${encodeURIComponent(`${AS}/oauth`)}`);
      case 'GET /loop':
        return redirect('/loop', 302);
      default:
        return new Response('not found', { status: 404 });
    }
  };
  return { fetch: fetchImpl, seen };
}

const AUTHORIZATION_URL = `${AS}/oauth/auth?response_type=code&client_id=c&redirect_uri=${encodeURIComponent(CALLBACK)}&state=s`;

describe(OAuthBrowser, () => {
  describe('authorize', () => {
    it('signs in, approves, and stops at the redirect to the client without fetching it', async () => {
      const server = fakeAuthorizationServer();
      const browser = new OAuthBrowser({ fetch: server.fetch });
      const callback = await browser.authorize(AUTHORIZATION_URL, { username: 'demo', password: 'pw', consent: 'approve' });
      expect(callback.origin + callback.pathname).toBe(CALLBACK);
      expect(callback.searchParams.get('code')).toBe('the-code');
      expect(server.seen.some((request) => request.url.startsWith(CALLBACK))).toBe(false);
    });

    it('posts the forms urlencoded with their csrf, the user fields, and the page origin', async () => {
      const server = fakeAuthorizationServer();
      await new OAuthBrowser({ fetch: server.fetch }).authorize(AUTHORIZATION_URL, { username: 'demo', password: 'pw', consent: 'approve' });
      const posts = server.seen.filter((request) => request.method === 'POST');
      expect(posts.map((request) => new URL(request.url).pathname)).toEqual(['/oauth/interaction/uid1/login', '/oauth/interaction/uid2/confirm']);
      expect(Object.fromEntries(new URLSearchParams(posts[0]?.body))).toEqual({ csrf: 'L1', username: 'demo', password: 'pw' });
      for (const post of posts) {
        expect(post.contentType).toBe('application/x-www-form-urlencoded');
        expect(post.origin).toBe(AS);
      }
    });

    it('sends each interaction cookie only to its own path, and the Secure session cookie back on loopback', async () => {
      const server = fakeAuthorizationServer();
      await new OAuthBrowser({ fetch: server.fetch }).authorize(AUTHORIZATION_URL, { username: 'demo', password: 'pw', consent: 'approve' });
      const consentPage = server.seen.find((request) => request.url === `${AS}/oauth/interaction/uid2`);
      expect(consentPage?.cookie).toBe('_interaction=uid2; __Host-session=s1');
      const resume = server.seen.find((request) => request.url === `${AS}/oauth/auth/uid2`);
      expect(resume?.cookie).toBe('__Host-session=s1');
    });

    it('submits the deny form when the user refuses', async () => {
      const server = fakeAuthorizationServer();
      const callback = await new OAuthBrowser({ fetch: server.fetch }).authorize(AUTHORIZATION_URL, { username: 'demo', password: 'pw', consent: 'deny' });
      expect(callback.searchParams.get('error')).toBe('access_denied');
    });

    it('throws when the sign-in page comes back (wrong password)', async () => {
      const server = fakeAuthorizationServer('right');
      await expect(
        new OAuthBrowser({ fetch: server.fetch }).authorize(AUTHORIZATION_URL, { username: 'demo', password: 'wrong', consent: 'approve' }),
      ).rejects.toThrow(/sign-in page came back/);
    });

    it('throws with the status and text of a page that has no form (an error page)', async () => {
      const server = fakeAuthorizationServer();
      const error: unknown = await new OAuthBrowser({ fetch: server.fetch })
        .authorize(`${AS}/nowhere`, { username: 'demo', password: 'pw', consent: 'approve' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OAuthBrowserError);
      expect((error as OAuthBrowserError).response?.status).toBe(404);
      expect((error as Error).message).toContain('not found');
    });
  });

  describe('navigate', () => {
    it('bounds a redirect loop', async () => {
      const server = fakeAuthorizationServer();
      await expect(new OAuthBrowser({ fetch: server.fetch, maxRedirects: 5 }).navigate(`${AS}/loop`)).rejects.toThrow(/more than 5 redirects/);
      expect(server.seen).toHaveLength(6);
    });
  });

  describe('submit', () => {
    it('replaces and omits fields, for forged-csrf tests', async () => {
      const server = fakeAuthorizationServer();
      const browser = new OAuthBrowser({ fetch: server.fetch });
      const signIn = pageOf(await browser.navigate(AUTHORIZATION_URL));
      expect(csrfOf(signIn, 'login')).toBe('L1');
      const forged = await browser.submit(signIn, 'login', { fields: { csrf: 'forged', username: 'demo', password: 'pw' }, follow: false });
      expect(pageOf(forged).status).toBe(403);
      const missing = await browser.submit(signIn, 'login', { omit: ['csrf'], fields: { username: 'demo', password: 'pw' }, follow: false });
      expect(pageOf(missing).status).toBe(403);
      expect(new URLSearchParams(server.seen.at(-1)?.body).has('csrf')).toBe(false);
    });
  });
});

describe(pageOf, () => {
  it('answers the page a navigation ended on, and throws naming the URL when it left the site', async () => {
    const browser = new OAuthBrowser({ fetch: fakeAuthorizationServer().fetch });
    const signIn = await browser.navigate(AUTHORIZATION_URL);
    expect(pageOf(signIn).url).toBe(`${AS}/oauth/interaction/uid1`);
    const consent = await browser.submit(pageOf(signIn), 'login', { fields: { username: 'demo', password: 'pw' } });
    const denied = await browser.submit(pageOf(consent), 'deny');
    expect(() => pageOf(denied)).toThrow(OAuthBrowserError);
    expect(() => pageOf(denied)).toThrow(/left the site for http:\/\/127\.0\.0\.1:43117\/callback\?error=access_denied/);
  });
});

describe(exitUrlOf, () => {
  it('answers the URL a navigation left the site for, and throws with the page it stayed on', async () => {
    const browser = new OAuthBrowser({ fetch: fakeAuthorizationServer().fetch });
    const signIn = await browser.navigate(AUTHORIZATION_URL);
    expect(() => exitUrlOf(signIn)).toThrow(/stayed on a page \(GET http:\/\/127\.0\.0\.1:3101\/oauth\/interaction\/uid1 answered 200/);
    const consent = pageOf(await browser.submit(pageOf(signIn), 'login', { fields: { username: 'demo', password: 'pw' } }));
    const back = exitUrlOf(await browser.submit(consent, 'consent'));
    expect(back.searchParams.get('code')).toBe('the-code');
  });
});
