import { isIP } from 'node:net';

/** One cookie as the jar keeps it (RFC 6265 §5.3 storage model, reduced to what a test browser needs). */
export interface StoredCookie {
  name: string;
  value: string;
  /** Lower-case host (or domain, when `hostOnly` is false) the cookie belongs to. */
  domain: string;
  /** True when the server set no `Domain` attribute: only this exact host gets the cookie back. */
  hostOnly: boolean;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: string;
  /** Epoch milliseconds after which the cookie is gone; `undefined` for a session cookie. */
  expiresAt?: number;
  /** Order of creation, for the RFC 6265 §5.4 ordering of equal-length paths. */
  createdAt: number;
}

/**
 * A browser's cookie store for one test "user": keyed by host (cookies ignore ports, RFC 6265 §8.5),
 * honouring `Domain`, `Path`, `Expires`/`Max-Age`, `Secure` and the `__Secure-`/`__Host-` prefixes the
 * way current browsers do. Loopback hosts count as secure contexts (browsers treat
 * `http://127.0.0.1` and `http://localhost` as potentially trustworthy), so `Secure` cookies set by a
 * platform on loopback are kept and sent back, as a real browser would.
 */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();
  private sequence = 0;

  /** @param now the clock (epoch ms), injectable so expiry is testable without waiting. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Stores the `Set-Cookie` header values of a response to `url`; malformed or refused cookies are dropped. */
  store(url: URL | string, setCookieHeaders: readonly string[]): void {
    const target = new URL(url);
    for (const header of setCookieHeaders) this.storeOne(target, header);
  }

  /** The `Cookie` header value for a request to `url`, or `undefined` when no cookie applies. */
  header(url: URL | string): string | undefined {
    const target = new URL(url);
    this.evictExpired();
    const host = normalisedHost(target);
    const matching = [...this.cookies.values()].filter(
      (cookie) =>
        (cookie.hostOnly ? cookie.domain === host : domainMatches(host, cookie.domain)) &&
        pathMatches(target.pathname || '/', cookie.path) &&
        (!cookie.secure || isTrustworthy(target)),
    );
    if (matching.length === 0) return undefined;
    // spec RFC 6265 §5.4: longer paths first, then earlier creation.
    matching.sort((a, b) => b.path.length - a.path.length || a.createdAt - b.createdAt);
    return matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  }

  /** Every live cookie (for assertions on cookie attributes). */
  list(): StoredCookie[] {
    this.evictExpired();
    return [...this.cookies.values()].map((cookie) => ({ ...cookie }));
  }

  /** Forgets every cookie (a fresh browser profile). */
  clear(): void {
    this.cookies.clear();
  }

  private storeOne(target: URL, header: string): void {
    const [pair = '', ...attributeParts] = header.split(';');
    const equals = pair.indexOf('=');
    // spec RFC 6265 §5.2 step 2: a pair without "=" is ignored.
    if (equals < 0) return;
    const name = pair.slice(0, equals).trim();
    const value = pair.slice(equals + 1).trim();
    if (name === '') return;

    const host = normalisedHost(target);
    let domain: string | undefined;
    let path: string | undefined;
    let secure = false;
    let httpOnly = false;
    let sameSite: string | undefined;
    let maxAge: number | undefined;
    let expires: number | undefined;
    for (const part of attributeParts) {
      const separator = part.indexOf('=');
      const attribute = (separator < 0 ? part : part.slice(0, separator)).trim().toLowerCase();
      const attributeValue = separator < 0 ? '' : part.slice(separator + 1).trim();
      switch (attribute) {
        case 'domain':
          if (attributeValue !== '') domain = attributeValue.replace(/^\./, '').toLowerCase();
          break;
        case 'path':
          path = attributeValue.startsWith('/') ? attributeValue : undefined;
          break;
        case 'secure':
          secure = true;
          break;
        case 'httponly':
          httpOnly = true;
          break;
        case 'samesite':
          sameSite = attributeValue;
          break;
        case 'max-age':
          if (/^-?\d+$/.test(attributeValue)) maxAge = Number(attributeValue);
          break;
        case 'expires': {
          const parsed = Date.parse(attributeValue);
          if (!Number.isNaN(parsed)) expires = parsed;
          break;
        }
        default:
          break;
      }
    }

    if (domain !== undefined && !domainMatches(host, domain)) return;
    // An IP address has no parent domains: Domain must name it exactly.
    if (domain !== undefined && isIP(host) !== 0 && domain !== host) return;
    if (secure && !isTrustworthy(target)) return;
    if (name.startsWith('__Secure-') && !secure) return;
    if (name.startsWith('__Host-') && (!secure || domain !== undefined || path !== '/')) return;

    const now = this.now();
    // spec RFC 6265 §5.3 step 3: Max-Age wins over Expires.
    const expiresAt = maxAge !== undefined ? now + maxAge * 1000 : expires;
    const cookie: StoredCookie = {
      name,
      value,
      domain: domain ?? host,
      hostOnly: domain === undefined,
      path: path ?? defaultPath(target.pathname),
      secure,
      httpOnly,
      ...(sameSite === undefined ? {} : { sameSite }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      createdAt: this.sequence++,
    };
    const key = `${cookie.name}\u0000${cookie.domain}\u0000${cookie.path}`;
    const existing = this.cookies.get(key);
    if (expiresAt !== undefined && expiresAt <= now) {
      this.cookies.delete(key);
      return;
    }
    // spec RFC 6265 §5.3 step 11: replacing a cookie keeps its creation time.
    this.cookies.set(key, existing ? { ...cookie, createdAt: existing.createdAt } : cookie);
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [key, cookie] of this.cookies) {
      if (cookie.expiresAt !== undefined && cookie.expiresAt <= now) this.cookies.delete(key);
    }
  }
}

function normalisedHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function domainMatches(host: string, domain: string): boolean {
  return host === domain || (host.endsWith(`.${domain}`) && isIP(host) === 0);
}

/** spec RFC 6265 §5.1.4 path-match. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}

/** spec RFC 6265 §5.1.4 default-path: the request path up to, not including, its last "/". */
function defaultPath(requestPath: string): string {
  if (!requestPath.startsWith('/')) return '/';
  const last = requestPath.lastIndexOf('/');
  return last <= 0 ? '/' : requestPath.slice(0, last);
}

/** Secure contexts for cookies: https, and loopback hosts over http (as browsers treat them). */
function isTrustworthy(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  const host = normalisedHost(url);
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
