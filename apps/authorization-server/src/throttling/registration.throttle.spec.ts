import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@mcp-platform/shared-clock';
import { REGISTRATIONS_PER_HOUR, RegistrationThrottle } from './registration.throttle';
import type { Attempts, SignInAttemptsRepository } from './sign-in-attempts.repository';

/** The throttle table in memory, with `update`'s contract (decide on the current counts, write what it answers). */
class FakeAttempts {
  readonly rows = new Map<string, Attempts>();
  async update<T>(
    keys: readonly string[],
    decide: (current: ReadonlyMap<string, Attempts>) => { result: T; write?: ReadonlyMap<string, Attempts> },
  ): Promise<T> {
    const current = new Map(keys.flatMap((key) => (this.rows.has(key) ? [[key, this.rows.get(key) as Attempts] as const] : [])));
    const { result, write } = decide(current);
    for (const [key, attempts] of write ?? []) this.rows.set(key, attempts);
    return result;
  }
}

describe(RegistrationThrottle, () => {
  beforeAll(() => Logger.overrideLogger(false));

  function setup() {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const throttle = new RegistrationThrottle(new FakeAttempts() as unknown as SignInAttemptsRepository, clock);
    const fill = async (address: string) => {
      for (let count = 0; count < REGISTRATIONS_PER_HOUR; count++) expect((await throttle.take(address)).ok).toBe(true);
    };
    return { clock, throttle, fill };
  }

  it('lets a network register its allowance in an hour, then refuses until the hour is over', async () => {
    const { clock, throttle, fill } = setup();
    await fill('203.0.113.7');
    clock.advance(20 * 60_000);
    expect(await throttle.take('203.0.113.7')).toEqual({ ok: false, retryAfterMs: 40 * 60_000 });
    clock.advance(40 * 60_000);
    expect(await throttle.take('203.0.113.7')).toEqual({ ok: true });
  });

  it('counts an IPv6 network by its /64 and an IPv4-mapped address as the IPv4 one, and no other network with them', async () => {
    const { throttle, fill } = setup();
    await fill('2001:db8:1:2::1');
    expect((await throttle.take('2001:db8:1:2:ffff::9')).ok).toBe(false);
    expect((await throttle.take('2001:db8:1:3::1')).ok).toBe(true);
    await fill('198.51.100.4');
    expect((await throttle.take('::ffff:198.51.100.4')).ok).toBe(false);
    expect((await throttle.take('198.51.100.5')).ok).toBe(true);
  });
});
