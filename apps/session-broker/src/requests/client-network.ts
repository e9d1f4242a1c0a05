import ipaddr from 'ipaddr.js';

/** What an IPv6 caller is counted by: a /64 is what one subscriber (a home, a VM) usually gets whole. */
const IPV6_CALLER_PREFIX = 64;

/**
 * The network an anonymous caller is counted by, from its address as the HTTP server reports it
 * (behind a proxy, the forwarded one only when `TRUST_PROXY` says the proxy may be believed): an IPv4
 * address as is (also when it arrives IPv4-mapped), an IPv6 address as its /64, since one subscriber
 * holds a whole /64 and could otherwise count as 2^64 callers. `unknown` when there is no address.
 */
export function clientNetwork(address: string | undefined): string {
  if (address === undefined || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_CALLER_PREFIX}`);
  return `${network.toString()}/${IPV6_CALLER_PREFIX}`;
}
