import { Injectable, Logger } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { Clock } from '@mcp-platform/shared-clock';
import { SignInAttemptsRepository } from './sign-in-attempts.repository';

/**
 * Dynamic client registrations one client network may make in an hour. Registering is open (RFC 7591;
 * MCP clients register themselves) and every client is stored: unbounded, one address registered some
 * 1.6 million clients an hour. A client registers once per installation (a developer's tools, a few a
 * day), so a thousand an hour from one network is far above any real use.
 */
export const REGISTRATIONS_PER_HOUR = 1_000;
const WINDOW_MS = 3_600_000;

/** What an IPv6 caller is counted by: a /64 is what one subscriber usually gets whole. */
const IPV6_NETWORK_PREFIX = 64;

/** A registration may go ahead, or must wait. */
export type RegistrationOutcome = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Counts dynamic client registrations per client network (an IPv4 address, an IPv6 /64) in fixed
 * windows of an hour, cluster-wide, in the throttle table the sign-in attempts use (key
 * `registration:<network>`; a window's row holds its count, its start and its end). Beyond
 * `REGISTRATIONS_PER_HOUR` a registration is refused until the window ends.
 */
@Injectable()
export class RegistrationThrottle {
  private readonly logger = new Logger(RegistrationThrottle.name);

  constructor(
    private readonly attempts: SignInAttemptsRepository,
    private readonly clock: Clock,
  ) {}

  /** The key of the network `address` belongs to. */
  static key(address: string): string {
    return `registration:${clientNetwork(address)}`;
  }

  /** Counts a registration from `address` when its network's allowance has room; answers the wait otherwise. */
  async take(address: string): Promise<RegistrationOutcome> {
    const key = RegistrationThrottle.key(address);
    const now = this.clock.now();
    const outcome = await this.attempts.update<RegistrationOutcome>([key], (current) => {
      const window = current.get(key);
      const open = window !== undefined && now < window.blockedUntil;
      const count = open ? window.failures : 0;
      if (open && count >= REGISTRATIONS_PER_HOUR) return { result: { ok: false, retryAfterMs: window.blockedUntil - now } };
      const next = open ? { ...window, failures: count + 1 } : { failures: 1, lastFailureAt: now, blockedUntil: now + WINDOW_MS };
      return { result: { ok: true }, write: new Map([[key, next]]) };
    });
    if (!outcome.ok) this.logger.warn(`refused a client registration from ${clientNetwork(address)}: ${REGISTRATIONS_PER_HOUR} in the hour already`);
    return outcome;
  }
}

/** An IPv4 address as is (also IPv4-mapped), an IPv6 address as its /64; `unknown` when it is none. */
function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_NETWORK_PREFIX}`).toString()}/${IPV6_NETWORK_PREFIX}`;
}
