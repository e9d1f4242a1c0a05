import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** An outbound call refused by the SSRF guard (DESIGN.md §6); the message says why. */
export class SsrfRefusedError extends Error {
  readonly code = 'ERR_SSRF_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
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

/** Checks a tool's URL before any connection: http(s) only, and an IP literal host must be public. */
export function checkToolUrl(rawUrl: string, allowPrivateNetworks: boolean): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SsrfRefusedError(`invalid tool URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SsrfRefusedError(`only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password) throw new SsrfRefusedError('credentials in the tool URL are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Literal addresses never reach the DNS lookup below, so they are judged here.
  if (isIP(host) && !allowPrivateNetworks && !isPublicAddress(host)) {
    throw new SsrfRefusedError(`${host} is not a public address (private networks are not allowed for HTTP tools)`);
  }
  return url;
}

type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for the socket (undici `connect.lookup`): it resolves the name, refuses the connection
 * when any answer is not public, and hands the socket exactly the addresses it checked. The address
 * is pinned: there is no second resolution a DNS-rebinding answer could slip into.
 */
export function guardedLookup(allowPrivateNetworks: boolean, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      const family = typeof options === 'object' && options ? options.family : undefined;
      const wanted = addresses?.filter((entry) => !family || family === 0 || entry.family === family) ?? [];
      if (error || !wanted.length) {
        callback(error ?? Object.assign(new Error(`cannot resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      const refused = allowPrivateNetworks ? [] : wanted.filter((entry) => !isPublicAddress(entry.address));
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
