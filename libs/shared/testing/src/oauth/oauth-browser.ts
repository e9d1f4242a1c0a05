import { CookieJar } from './cookie-jar';
import { fieldValue, type HtmlForm, parseForms } from './html-forms';

/** The fetch the browser uses (global `fetch` by default; injectable for unit tests). */
export type BrowserFetch = (input: string, init: RequestInit) => Promise<Response>;

/** One answer the browser received (a page or a redirect), with its body read. */
export interface BrowserResponse {
  /** The URL that was requested. */
  url: string;
  method: string;
  status: number;
  headers: Headers;
  body: string;
  /** The absolute `Location` of a redirect answer. */
  location?: string;
}

/** A page that was rendered (not a redirect), with its forms parsed. */
export interface BrowserPage extends BrowserResponse {
  forms: HtmlForm[];
}

/** Where a navigation ended: on a page of the site, or at a redirect to another origin (not followed). */
export type Navigation = { kind: 'page'; page: BrowserPage; chain: BrowserResponse[] } | { kind: 'left-site'; url: URL; chain: BrowserResponse[] };

/** The user's decision on the consent page. */
export type ConsentDecision = 'approve' | 'deny';

/** What `authorize()` needs to play the user. */
export interface AuthorizeAs {
  username: string;
  password: string;
  consent: ConsentDecision;
}

/** Options of a form submission (defaults: the form's own fields, unchanged). */
export interface SubmitOptions {
  /** Values to set (added when the form has no such field). */
  fields?: Record<string, string>;
  /** Field names to leave out of the body (e.g. `csrf`, to test the CSRF defence). */
  omit?: readonly string[];
  /** Follow the answer's redirects (default true). */
  follow?: boolean;
}

export interface OAuthBrowserOptions {
  fetch?: BrowserFetch;
  /** Most redirects one navigation follows (default 20, as browsers bound loops). */
  maxRedirects?: number;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Clock of the cookie jar (epoch ms). */
  now?: () => number;
}

/** A page or answer the browser could not make sense of, with what it saw. */
export class OAuthBrowserError extends Error {
  constructor(
    message: string,
    readonly response?: BrowserResponse,
  ) {
    super(response ? `${message} (${response.method} ${response.url} answered ${response.status}: ${excerpt(response.body)})` : message);
    this.name = 'OAuthBrowserError';
  }
}

/** What `OAuthBrowser.request` sends: a method, a urlencoded body, extra headers. */
export interface RequestInitLike {
  method?: string;
  body?: URLSearchParams;
  headers?: Record<string, string>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The user's browser in the OAuth flows, played with plain `fetch`: a cookie jar, redirects followed
 * by hand (bounded), forms parsed and submitted as `application/x-www-form-urlencoded` by the pages'
 * contract (sign-in form `login` with `username`/`password`/`csrf`, consent forms `consent` and
 * `deny`). A navigation follows redirects only within the origin it started on; a redirect anywhere
 * else (the client's `redirect_uri`) ends it unfollowed, as the client's own listener would take over.
 */
export class OAuthBrowser {
  readonly cookies: CookieJar;
  /** Every answer received, in order (for failure messages). */
  readonly history: BrowserResponse[] = [];
  private readonly fetchImpl: BrowserFetch;
  private readonly maxRedirects: number;
  private readonly timeoutMs: number;

  constructor(options: OAuthBrowserOptions = {}) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.maxRedirects = options.maxRedirects ?? 20;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.cookies = new CookieJar(options.now);
  }

  /** One request with the jar's cookies; stores the answer's cookies; never follows a redirect. */
  async request(url: string | URL, init: RequestInitLike = {}): Promise<BrowserResponse> {
    const target = new URL(url);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8', ...init.headers };
    const cookie = this.cookies.header(target);
    if (cookie !== undefined) headers['cookie'] = cookie;
    if (init.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await this.fetchImpl(target.href, {
      method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
      ...(init.body === undefined ? {} : { body: init.body.toString() }),
    });
    this.cookies.store(target, setCookies(response.headers));
    const body = await response.text();
    const location = response.headers.get('location');
    const answer: BrowserResponse = {
      url: target.href,
      method,
      status: response.status,
      headers: response.headers,
      body,
      ...(REDIRECT_STATUSES.has(response.status) && location !== null ? { location: new URL(location, target).href } : {}),
    };
    this.history.push(answer);
    return answer;
  }

  /** Opens a URL and follows same-origin redirects until a page renders or a redirect leaves the origin. */
  async navigate(url: string | URL): Promise<Navigation> {
    return this.follow(await this.request(url), new URL(url).origin, {});
  }

  /**
   * Submits a form of a page the way a browser does: POST (or GET) to its action resolved against the
   * page URL, its fields (plus `options.fields`, minus `options.omit`) urlencoded, the first named
   * submit button included, `Origin` set to the page's origin.
   */
  async submit(page: BrowserPage, formId: string, options: SubmitOptions = {}): Promise<Navigation> {
    const form = page.forms.find((candidate) => candidate.id === formId);
    if (form === undefined) throw new OAuthBrowserError(`the page has no form "${formId}"`, page);
    const pageUrl = new URL(page.url);
    const action = new URL(form.action ?? page.url, pageUrl);
    const body = new URLSearchParams();
    const omitted = new Set(options.omit ?? []);
    const overrides = new Map(Object.entries(options.fields ?? {}));
    for (const field of form.fields) {
      if (omitted.has(field.name)) continue;
      const override = overrides.get(field.name);
      body.append(field.name, override ?? field.value);
      overrides.delete(field.name);
    }
    for (const [name, value] of overrides) if (!omitted.has(name)) body.append(name, value);
    const submitter = form.submitters[0];
    if (submitter !== undefined && !omitted.has(submitter.name)) body.append(submitter.name, submitter.value);

    let answer: BrowserResponse;
    let init: RequestInitLike = {};
    if (form.method === 'post') {
      init = { method: 'POST', body, headers: { origin: pageUrl.origin } };
      answer = await this.request(action, init);
    } else {
      action.search = body.toString();
      answer = await this.request(action);
    }
    if (options.follow === false) {
      return answer.location === undefined
        ? { kind: 'page', page: asPage(answer), chain: [answer] }
        : { kind: 'left-site', url: new URL(answer.location), chain: [answer] };
    }
    return this.follow(answer, pageUrl.origin, init);
  }

  /**
   * Plays the user through an authorization request: opens the URL, signs in on the `login` form when
   * asked (once), answers the `consent` form (approve) or the `deny` form, and returns the URL the
   * authorization server finally redirected to (the client's `redirect_uri` with `code` or `error`),
   * without fetching it. Throws when a page is neither form, or the sign-in form comes back (refused).
   */
  async authorize(authorizationUrl: string | URL, as: AuthorizeAs): Promise<URL> {
    let navigation = await this.navigate(authorizationUrl);
    let signedIn = false;
    let consented = false;
    for (let step = 0; step < 10; step += 1) {
      if (navigation.kind === 'left-site') return navigation.url;
      const { page } = navigation;
      if (page.forms.some((form) => form.id === 'login')) {
        if (signedIn) throw new OAuthBrowserError(`the sign-in page came back after signing in as ${as.username}`, page);
        signedIn = true;
        navigation = await this.submit(page, 'login', { fields: { username: as.username, password: as.password } });
        continue;
      }
      if (page.forms.some((form) => form.id === 'consent' || form.id === 'deny')) {
        if (consented) throw new OAuthBrowserError('the consent page came back after answering it', page);
        consented = true;
        navigation = await this.submit(page, as.consent === 'approve' ? 'consent' : 'deny');
        continue;
      }
      throw new OAuthBrowserError('the authorization server showed a page with neither a sign-in nor a consent form', page);
    }
    throw new OAuthBrowserError('the authorization flow did not end within 10 pages');
  }

  private async follow(first: BrowserResponse, origin: string, init: RequestInitLike): Promise<Navigation> {
    let answer = first;
    const chain = [answer];
    for (let hops = 0; answer.location !== undefined; hops += 1) {
      const next = new URL(answer.location);
      if (next.origin !== origin) return { kind: 'left-site', url: next, chain };
      if (hops >= this.maxRedirects) throw new OAuthBrowserError(`more than ${this.maxRedirects} redirects`, answer);
      // 307/308 keep the method and body; the others turn into a GET (as browsers do after a POST).
      answer = await this.request(next, answer.status === 307 || answer.status === 308 ? init : {});
      chain.push(answer);
    }
    return { kind: 'page', page: asPage(answer), chain };
  }
}

/**
 * The page a navigation ended on. Throws, naming where it went instead, when it left the site (the
 * test expected a sign-in, consent or error page and got a redirect to the client).
 */
export function pageOf(navigation: Navigation): BrowserPage {
  if (navigation.kind === 'page') return navigation.page;
  throw new OAuthBrowserError(`expected a page, the navigation left the site for ${navigation.url.href}`, navigation.chain.at(-1));
}

/**
 * The URL a navigation left the site for (the client's `redirect_uri` with `code` or `error`, never
 * fetched). Throws with the page it stayed on instead.
 */
export function exitUrlOf(navigation: Navigation): URL {
  if (navigation.kind === 'left-site') return navigation.url;
  throw new OAuthBrowserError('expected a redirect off the site, the navigation stayed on a page', navigation.page);
}

/** The `csrf` value of a form, if the form has one. */
export function csrfOf(page: BrowserPage, formId: string): string | undefined {
  const form = page.forms.find((candidate) => candidate.id === formId);
  return form === undefined ? undefined : fieldValue(form, 'csrf');
}

function asPage(answer: BrowserResponse): BrowserPage {
  const contentType = answer.headers.get('content-type') ?? '';
  return { ...answer, forms: contentType.includes('html') || answer.body.trimStart().startsWith('<') ? parseForms(answer.body) : [] };
}

function setCookies(headers: Headers): string[] {
  const withGetter = headers as Headers & { getSetCookie?: () => string[] };
  if (typeof withGetter.getSetCookie === 'function') return withGetter.getSetCookie();
  const single = headers.get('set-cookie');
  return single === null ? [] : [single];
}

function excerpt(body: string): string {
  const text = body
    .replace(/<style[\s\S]*?<\/style>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
