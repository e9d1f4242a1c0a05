/** An allow-list entry split once at start: `host` plus a port or `*`. */
interface HostPattern {
  host: string;
  /** `*` = any port; `''` = only a Host header without a port. */
  port: string;
}

/** Why the edge refuses a request before reading its body. */
export type EdgeRejection = { status: 403; reason: string } | { status: 406; reason: string };

/**
 * Host and Origin validation (DNS-rebinding defence, S-72) and `Accept` negotiation (S-76).
 * Pure and precomputed: a few set look-ups per request.
 */
export class EdgePolicy {
  private readonly exactHosts = new Set<string>();
  private readonly anyPortHosts = new Set<string>();
  private readonly exactOrigins = new Set<string>();
  private readonly anyPortOrigins = new Set<string>();

  constructor(allowedHosts: readonly string[], allowedOrigins: readonly string[]) {
    for (const entry of allowedHosts) {
      const pattern = splitHost(entry.trim().toLowerCase());
      if (pattern.port === '*') this.anyPortHosts.add(pattern.host);
      else this.exactHosts.add(pattern.port ? `${pattern.host}:${pattern.port}` : pattern.host);
    }
    for (const entry of allowedOrigins) {
      const origin = entry.trim().toLowerCase().replace(/\/+$/, '');
      if (origin.endsWith(':*')) this.anyPortOrigins.add(origin.slice(0, -2));
      else this.exactOrigins.add(origin);
    }
  }

  /** A missing Host is refused too: HTTP/1.1 requires it and we cannot tell where the request was aimed. */
  isHostAllowed(host: string | undefined): boolean {
    if (!host) return false;
    const lowered = host.toLowerCase();
    if (this.exactHosts.has(lowered)) return true;
    return this.anyPortHosts.has(splitHost(lowered).host);
  }

  /** Requests without Origin (non-browser clients) pass; a present Origin must be listed (S-72). */
  isOriginAllowed(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    const lowered = origin.toLowerCase();
    if (this.exactOrigins.has(lowered)) return true;
    const schemeEnd = lowered.indexOf('://');
    if (schemeEnd < 0) return false;
    const pattern = splitHost(lowered.slice(schemeEnd + 3));
    return this.anyPortOrigins.has(`${lowered.slice(0, schemeEnd + 3)}${pattern.host}`);
  }

  /** The first reason to refuse a request from its headers alone, or `undefined`. */
  check(method: string, headers: { host?: string; origin?: string; accept?: string }): EdgeRejection | undefined {
    if (!this.isHostAllowed(headers.host)) return { status: 403, reason: 'Forbidden: Host is not allowed' };
    if (!this.isOriginAllowed(headers.origin)) return { status: 403, reason: 'Forbidden: Origin is not allowed' };
    if (method === 'POST' && !acceptsBoth(headers.accept)) {
      return { status: 406, reason: 'Not Acceptable: Accept must list application/json and text/event-stream' };
    }
    if (method === 'GET' && !acceptsMedia(headers.accept, 'text', 'event-stream')) {
      return { status: 406, reason: 'Not Acceptable: Accept must list text/event-stream' };
    }
    return undefined;
  }
}

function splitHost(value: string): HostPattern {
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return { host: value, port: '' };
    const rest = value.slice(close + 1);
    return { host: value.slice(0, close + 1), port: rest.startsWith(':') ? rest.slice(1) : '' };
  }
  const colon = value.lastIndexOf(':');
  return colon < 0 ? { host: value, port: '' } : { host: value.slice(0, colon), port: value.slice(colon + 1) };
}

/** POST clients must accept both response modes (S-76); wildcards count. */
export function acceptsBoth(accept: string | undefined): boolean {
  return acceptsMedia(accept, 'application', 'json') && acceptsMedia(accept, 'text', 'event-stream');
}

/** Whether an Accept header admits `type/subtype` (parameters ignored, `q=0` honoured). */
export function acceptsMedia(accept: string | undefined, type: string, subtype: string): boolean {
  if (!accept) return false;
  for (const range of accept.split(',')) {
    const [media = '', ...parameters] = range.split(';');
    const [rangeType = '', rangeSubtype = ''] = media.trim().toLowerCase().split('/');
    if (parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(parameter))) continue;
    if ((rangeType === type || rangeType === '*') && (rangeSubtype === subtype || rangeSubtype === '*')) return true;
  }
  return false;
}
