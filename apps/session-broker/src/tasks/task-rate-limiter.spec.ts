import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import { TaskRateLimiter, type TaskRateLimiterOptions } from './task-rate-limiter';

const alice: Principal = { subject: 'alice', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false };
const anonymous: Principal = { subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true };
const ALICE = TaskRateLimiter.requesterKey(alice);

function limiter(options: Partial<TaskRateLimiterOptions> = {}) {
  let now = 1_000_000;
  const instance = new TaskRateLimiter({ operationsPerMinute: 600, now: () => now, ...options });
  return { instance, advance: (ms: number) => (now += ms) };
}

/** Takes `count` tokens of `key`; how many were granted. */
function takeMany(instance: TaskRateLimiter, key: string, count: number): number {
  let granted = 0;
  for (let index = 0; index < count; index += 1) if (instance.take(key).allowed) granted += 1;
  return granted;
}

describe(TaskRateLimiter, () => {
  describe('take', () => {
    it('grants a burst of a tenth of a minute’s worth at once, then refuses with the whole seconds until a token', () => {
      const { instance } = limiter({ operationsPerMinute: 600 });
      expect(takeMany(instance, ALICE, 60)).toBe(60);
      expect(instance.take(ALICE)).toEqual({ allowed: false, retryAfterSeconds: 1, report: true, refusedSinceReport: 1 });
    });

    it('grants at least 10 at once for a low rate, and says how long the next token takes', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 6 });
      expect(takeMany(instance, ALICE, 11)).toBe(10);
      // One token every 10 s.
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
      advance(2_500);
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, retryAfterSeconds: 8 });
      advance(7_500);
      expect(instance.take(ALICE)).toEqual({ allowed: true });
      expect(instance.take(ALICE)).toMatchObject({ allowed: false });
    });

    it('refills at the configured rate and never above the burst', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      advance(99);
      expect(instance.take(ALICE).allowed).toBe(false);
      advance(1);
      expect(instance.take(ALICE).allowed).toBe(true);
      // Ten seconds' refill is 100 tokens, but the bucket holds 60.
      advance(10_000);
      expect(takeMany(instance, ALICE, 70)).toBe(60);
    });

    it('sustains the rate for a steady caller: 10 a second at 600 a minute', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      let granted = 0;
      for (let tick = 0; tick < 1_000; tick += 1) {
        advance(10);
        granted += takeMany(instance, ALICE, 1);
      }
      expect(granted).toBe(100);
    });

    it('refills nothing while the clock steps back, nor twice once it catches up', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      advance(-5_000);
      expect(instance.take(ALICE).allowed).toBe(false);
      advance(5_100);
      // 100 ms since the latest time seen: one token, not fifty-one.
      expect(takeMany(instance, ALICE, 5)).toBe(1);
    });

    it('grants everything and tracks no one when the rate is 0', () => {
      const { instance } = limiter({ operationsPerMinute: 0 });
      expect(takeMany(instance, ALICE, 10_000)).toBe(10_000);
      expect(instance.size).toBe(0);
    });

    it('reports a refused requester once a minute at most, counting the refusals in between', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, report: true, refusedSinceReport: 1 });
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, report: false });
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, report: false });
      advance(59_999);
      takeMany(instance, ALICE, 60);
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, report: false });
      advance(1);
      expect(instance.take(ALICE)).toMatchObject({ allowed: false, report: true, refusedSinceReport: 4 });
    });

    it('refuses a bad configuration', () => {
      expect(() => new TaskRateLimiter({ operationsPerMinute: -1 })).toThrow(/operationsPerMinute/);
      expect(() => new TaskRateLimiter({ operationsPerMinute: 1.5 })).toThrow(/operationsPerMinute/);
      expect(() => new TaskRateLimiter({ operationsPerMinute: 600, maxRequesters: 0 })).toThrow(/maxRequesters/);
    });
  });

  describe('requesterKey', () => {
    it.each<[string, string]>([
      ['another subject', TaskRateLimiter.requesterKey({ ...alice, subject: 'bob' })],
      ['the same subject in another tenant', TaskRateLimiter.requesterKey({ ...alice, tenant: 'acme' })],
      ['an anonymous caller', TaskRateLimiter.requesterKey(anonymous)],
    ])('keeps %s apart from alice', (_name, other) => {
      const { instance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      expect(instance.take(ALICE).allowed).toBe(false);
      expect(instance.take(other).allowed).toBe(true);
    });

    it('does not let separators in names make two requesters one', () => {
      expect(TaskRateLimiter.requesterKey({ ...alice, tenant: 'a', subject: 'b:c' })).not.toBe(
        TaskRateLimiter.requesterKey({ ...alice, tenant: 'a:b', subject: 'c' }),
      );
    });

    it('counts a subject across its OAuth clients: clients register for free (DCR, CIMD), so a per-client allowance has no bound', () => {
      const { instance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      const viaNewClient: Principal = { ...alice, clientId: 'registered-a-minute-ago' };
      const { clientId: _none, ...withoutClient } = alice;
      expect(instance.take(TaskRateLimiter.requesterKey(viaNewClient)).allowed).toBe(false);
      expect(instance.take(TaskRateLimiter.requesterKey(withoutClient)).allowed).toBe(false);
    });

    it('counts an authenticated caller across its legacy sessions', () => {
      expect(TaskRateLimiter.requesterKey(alice, 'session-1')).toBe(TaskRateLimiter.requesterKey(alice, 'session-2'));
      expect(TaskRateLimiter.requesterKey(alice, 'session-1')).toBe(ALICE);
    });

    it('counts anonymous callers by legacy session, else one allowance per tenant', () => {
      const { instance } = limiter({ operationsPerMinute: 600 });
      const sessionOne = TaskRateLimiter.requesterKey(anonymous, 'session-1');
      takeMany(instance, sessionOne, 60);
      expect(instance.take(sessionOne).allowed).toBe(false);
      expect(instance.take(TaskRateLimiter.requesterKey(anonymous, 'session-2')).allowed).toBe(true);
      expect(instance.take(TaskRateLimiter.requesterKey(anonymous)).allowed).toBe(true);

      const sessionless = TaskRateLimiter.requesterKey(anonymous);
      takeMany(instance, sessionless, 60);
      // Every sessionless anonymous caller of the tenant shares it; another tenant's do not.
      expect(instance.take(TaskRateLimiter.requesterKey({ ...anonymous, subject: 'someone' })).allowed).toBe(false);
      expect(instance.take(TaskRateLimiter.requesterKey({ ...anonymous, tenant: 'acme' })).allowed).toBe(true);
    });
  });

  describe('memory', () => {
    it('drops a requester idle long enough to be full again, once another comes by', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 600 });
      takeMany(instance, ALICE, 60);
      advance(30_000);
      instance.take('bob');
      expect(instance.size).toBe(2);
      // A minute after alice's last request: her bucket is full and her report interval over.
      advance(30_000);
      instance.take('carol');
      expect(instance.size).toBe(2);
      // Dropped loses nothing: she starts over with a full burst.
      expect(takeMany(instance, ALICE, 61)).toBe(60);
    });

    it('keeps a requester that is still refilling', () => {
      const { instance, advance } = limiter({ operationsPerMinute: 6 });
      takeMany(instance, ALICE, 10);
      // Ten tokens at one per 10 s take 100 s to come back.
      advance(90_000);
      instance.take('bob');
      expect(instance.size).toBe(2);
      expect(takeMany(instance, ALICE, 10)).toBe(9);
    });

    it('tracks at most maxRequesters, dropping the least recently seen', () => {
      const { instance } = limiter({ operationsPerMinute: 600, maxRequesters: 3 });
      takeMany(instance, ALICE, 60);
      instance.take('bob');
      instance.take('carol');
      instance.take('bob');
      instance.take('dave');
      expect(instance.size).toBe(3);
      // Alice was seen least recently: she is forgotten, and her next request starts a full bucket.
      expect(instance.take(ALICE).allowed).toBe(true);
      expect(instance.size).toBe(3);
    });
  });
});
