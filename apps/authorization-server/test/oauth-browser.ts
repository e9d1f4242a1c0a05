import { createHash, randomBytes } from 'node:crypto';
import { CookieJar } from '@mcp-platform/shared-testing';

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** One answer as the test browser saw it. */
export interface Page {
  url: string;
  status: number;
  headers: Headers;
  body: string;
  location?: string;
}

/** A form of a page: its action and hidden csrf value, by element id. */
export function formOf(html: string, id: string): { action: string; csrf: string } | undefined {
  const form = new RegExp(`<form id="${id}" method="post" action="([^"]+)">([\\s\\S]*?)</form>`).exec(html);
  if (!form) return undefined;
  const csrf = /name="csrf" value="([^"]*)"/.exec(form[2] ?? '')?.[1] ?? '';
  return { action: (form[1] ?? '').replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code))), csrf };
}

/**
 * A minimal browser: one cookie jar, no automatic redirects (each hop is a request the test can look
 * at), form posts as `application/x-www-form-urlencoded`.
 */
export class TestBrowser {
  readonly jar = new CookieJar();

  constructor(private readonly origin: string) {}

  async get(url: string): Promise<Page> {
    return this.request(url, { method: 'GET' });
  }

  async post(url: string, fields: Record<string, string>): Promise<Page> {
    return this.request(url, { method: 'POST', body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  /** Follows redirects while they stay on the authorization server; answers the last page (or the redirect leaving it). */
  async follow(page: Page): Promise<Page> {
    let current = page;
    for (let hops = 0; current.location && hops < 10; hops += 1) {
      const next = new URL(current.location, current.url);
      if (next.origin !== this.origin) return current;
      current = await this.get(next.href);
    }
    return current;
  }

  private async request(url: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<Page> {
    const absolute = new URL(url, this.origin).href;
    const cookie = this.jar.header(absolute);
    const response = await fetch(absolute, { ...init, redirect: 'manual', headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
    this.jar.store(absolute, response.headers.getSetCookie());
    const location = response.headers.get('location') ?? undefined;
    return { url: absolute, status: response.status, headers: response.headers, body: await response.text(), ...(location ? { location } : {}) };
  }
}

/** What an authorization request sends (S-160, S-161). */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  resource?: string;
  scope?: string;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** The authorization endpoint URL for a request. */
export function authorizationUrl(issuer: string, request: AuthorizationRequest): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: request.clientId, redirect_uri: request.redirectUri });
  if (request.resource) query.set('resource', request.resource);
  if (request.scope) query.set('scope', request.scope);
  if (request.state) query.set('state', request.state);
  if (request.codeChallenge) query.set('code_challenge', request.codeChallenge);
  if (request.codeChallengeMethod) query.set('code_challenge_method', request.codeChallengeMethod);
  return `${issuer}/auth?${query.toString()}`;
}

/**
 * Plays the user through sign-in and consent: answers the redirect back to the client (its URL
 * carries `code`, `state` and `iss`), plus the pages seen on the way.
 */
export async function authorize(
  browser: TestBrowser,
  issuer: string,
  request: AuthorizationRequest,
  user: { username: string; password: string },
): Promise<{ callback: URL; signIn: Page; consent: Page }> {
  const signIn = await browser.follow(await browser.get(authorizationUrl(issuer, request)));
  const login = formOf(signIn.body, 'login');
  if (!login) throw new Error(`no sign-in form (HTTP ${signIn.status}, ${signIn.location ?? signIn.body.slice(0, 300)})`);
  const consent = await browser.follow(await browser.post(login.action, { username: user.username, password: user.password, csrf: login.csrf }));
  const approve = formOf(consent.body, 'consent');
  if (!approve) throw new Error(`no consent form (HTTP ${consent.status}, ${consent.location ?? consent.body.slice(0, 300)})`);
  const back = await browser.follow(await browser.post(approve.action, { csrf: approve.csrf }));
  if (!back.location) throw new Error(`no redirect to the client (HTTP ${back.status}, ${back.body.slice(0, 300)})`);
  return { callback: new URL(back.location), signIn, consent };
}

/** POSTs a form to an endpoint (token, revocation, introspection), optionally with HTTP Basic client authentication. */
export async function postForm(url: string, fields: Record<string, string>, basic?: { id: string; secret: string }): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers['authorization'] = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
}

/** The decoded header and payload of a JWT (no verification). */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = token.split('.');
  return { header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>, payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown> };
}
