import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Why the guard refused: `non_public_address`, the target is (or resolves to) an address the policy
 * keeps out (what an operator's setting can lift); `url`, the URL itself is refused (scheme,
 * credentials, unparsable), whatever the policy.
 */
export type SsrfRefusalReason = 'non_public_address' | 'url';

/**
 * An outbound call refused by the SSRF guard (DESIGN.md §6, S-164). The message says why, naming
 * hosts and addresses: it is for logs and administrators, never for the caller that triggered the call.
 */
export class SsrfRefusedError extends Error {
  readonly code = 'ERR_SSRF_REFUSED';
  constructor(
    message: string,
    readonly reason: SsrfRefusalReason,
  ) {
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

/** The global unicast block (RFC 4291 §2.4, IANA): the only IPv6 addresses routed on the internet. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** NAT64's well-known prefix (RFC 6052 §2.1): a translator forwards to the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

/**
 * Whether an address is on the public internet. IPv4: only ipaddr.js's `unicast` range passes
 * (loopback, private, link-local, multicast, unspecified, broadcast, CGNAT, reserved and
 * documentation/benchmarking are refused). IPv6: only global unicast (2000::/3) outside every
 * special range ipaddr.js knows (6to4, Teredo, ORCHID, documentation, benchmarking…), so the
 * IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291 §2.5.5.1), SIIT's `::ffff:0:a.b.c.d` and the rest
 * of ::/8 are refused whatever IPv4 address they carry. Two forms are judged as the IPv4 address they
 * carry: IPv4-mapped (`::ffff:a.b.c.d`, which the socket connects to over IPv4) and NAT64's well-known
 * prefix (`64:ff9b::a.b.c.d`, what DNS64 answers on an IPv6-only network for a host with only an A record).
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  if (v6.match(NAT64_WELL_KNOWN)) return ipv4Of(v6).range() === 'unicast';
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}

/**
 * An address as the socket will read it. ipaddr.js reads `::a.b.c.d` as IPv4-mapped (`::ffff:a.b.c.d`)
 * where Node reads IPv4-compatible (`::a.b.c.d`); judging one address while connecting to another is
 * how guards are bypassed, so IPv6 text goes through Node's own parser (the URL host parser, the one
 * undici uses) first. IPv4 is dotted decimal only (`net.isIP`); anything else is no address.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const version = isIP(address);
  try {
    if (version === 4) return ipaddr.IPv4.parse(address);
    if (version === 6) return ipaddr.IPv6.parse(bare(new URL(`http://[${address}]/`).hostname));
  } catch {
    // A zone id (`fe80::1%eth0`) or anything else the URL parser refuses is not a public address.
  }
  return undefined;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function ipv4Of(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high = 0, low = 0] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
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
    throw new SsrfRefusedError('invalid URL', 'url');
  }
  if (!protocols.includes(url.protocol))
    throw new SsrfRefusedError(`only ${protocols.map((protocol) => protocol.replace(/:$/, '')).join(' and ')} URLs are allowed, not ${url.protocol}`, 'url');
  if (url.username || url.password) throw new SsrfRefusedError('credentials in the URL are not allowed', 'url');
  const host = bare(url.hostname);
  // Literal addresses never reach the DNS lookup below, so they are judged here.
  if (isIP(host) && !isHostExempt(policy, host) && !isPublicAddress(host)) {
    throw new SsrfRefusedError(`${host} is not a public address`, 'non_public_address');
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
        callback(new SsrfRefusedError(`${hostname} resolves to ${refused[0]?.address}, which is not a public address`, 'non_public_address'), '', 0);
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
    const copy = current as { code?: string; message?: string; reason?: SsrfRefusalReason };
    if (copy.code === 'ERR_SSRF_REFUSED') return new SsrfRefusedError(copy.message ?? 'refused', copy.reason ?? 'non_public_address');
  }
  return undefined;
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}
