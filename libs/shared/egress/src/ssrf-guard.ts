import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** An outbound call refused by the SSRF guard (DESIGN.md §6, S-164); the message says why. */
export class SsrfRefusedError extends Error {
  readonly code = 'ERR_SSRF_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
}

/** Which non-public targets an outbound call may reach anyway. Everything public is always reachable. */
export interface EgressPolicy {
  /** Lift the guard for every host: an operator's explicit choice (HTTP tools on a trusted network). */
  allowPrivateNetworks?: boolean;
  /** Host names or IP literals (no port, case-insensitive) exempt from the guard, e.g. a CIMD host on the operator's network. */
  allowedHosts?: readonly string[];
}

/** Whether the policy exempts `hostname` (as in a URL, IPv6 literals with or without brackets). */
export function isHostExempt(policy: EgressPolicy, hostname: string): boolean {
  if (policy.allowPrivateNetworks) return true;
  const host = bare(hostname);
  return (policy.allowedHosts ?? []).some((allowed) => bare(allowed) === host);
}

/**
 * Whether an address is on the public internet. Only ipaddr.js's `unicast` range passes; loopback,
 * private, link-local, unique-local, multicast, unspecified, broadcast, CGNAT, reserved,
 * documentation/benchmarking and the v6 transition ranges (6to4, Teredo, NAT64) are refused.
 * An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/**
 * Checks a URL before any connection: http(s) only (or only the given protocols), no credentials, and
 * an IP-literal host must be public unless the policy exempts it. Host names are judged later, by
 * `guardedLookup`, on the addresses actually connected to.
 */
export function checkOutboundUrl(rawUrl: string, policy: EgressPolicy, protocols: readonly string[] = ['http:', 'https:']): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SsrfRefusedError('invalid URL');
  }
  if (!protocols.includes(url.protocol)) throw new SsrfRefusedError(`only ${protocols.map((protocol) => protocol.replace(/:$/, '')).join(' and ')} URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password) throw new SsrfRefusedError('credentials in the URL are not allowed');
  const host = bare(url.hostname);
  // Literal addresses never reach the DNS lookup below, so they are judged here.
  if (isIP(host) && !isHostExempt(policy, host) && !isPublicAddress(host)) {
    throw new SsrfRefusedError(`${host} is not a public address (private networks are not allowed)`);
  }
  return url;
}

/** Resolves a host name to every address (injected in tests). */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for the socket (undici `connect.lookup`): it resolves the name, refuses the connection
 * when any answer is not public (unless the policy exempts the host), and hands the socket exactly the
 * addresses it checked. The address is pinned: there is no second resolution a DNS-rebinding answer
 * could slip into.
 */
export function guardedLookup(policy: EgressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      const family = typeof options === 'object' && options ? options.family : undefined;
      const wanted = addresses?.filter((entry) => !family || family === 0 || entry.family === family) ?? [];
      if (error || !wanted.length) {
        callback(error ?? Object.assign(new Error(`cannot resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      const refused = isHostExempt(policy, hostname) ? [] : wanted.filter((entry) => !isPublicAddress(entry.address));
      if (refused.length) {
        callback(new SsrfRefusedError(`${hostname} resolves to ${refused[0]?.address}, which is not a public address`), '', 0);
        return;
      }
      if (typeof options === 'object' && options?.all) {
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, wanted);
        return;
      }
      const first = wanted[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** Finds the guard's refusal in an error's `cause` chain (undici wraps connection errors). */
export function findSsrfRefusal(error: unknown): SsrfRefusedError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    if (current instanceof SsrfRefusedError) return current;
    if ((current as { code?: string }).code === 'ERR_SSRF_REFUSED') return new SsrfRefusedError((current as Error).message);
  }
  return undefined;
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}
