import { describe, expect, it } from 'vitest';
import { ManualClock } from '@mcp-platform/shared-clock';
import { ACCOUNT_FREE_ATTEMPTS, FREE_ATTEMPTS, MAX_PAUSE_MS, SignInThrottle, waitMs, withFailure } from './sign-in.throttle';
import type { Attempts, SignInAttemptsRepository } from './sign-in-attempts.repository';

const NOW = 1_000_000_000;

/** Counts `n` failures of one key, `stepMs` apart. */
function failures(n: number, free = FREE_ATTEMPTS, stepMs = 0): Attempts | undefined {
  let attempts: Attempts | undefined;
  for (let index = 0; index < n; index += 1) attempts = withFailure(attempts, NOW + index * stepMs, free);
  return attempts;
}

describe(withFailure, () => {
  it('lets the first attempts through without a pause', () => {
    expect(waitMs(failures(FREE_ATTEMPTS - 1), NOW)).toBe(0);
  });

  it('pauses from the last free attempt on and doubles the pause with each failure', () => {
    expect(waitMs(failures(FREE_ATTEMPTS), NOW)).toBe(1000);
    expect(waitMs(failures(FREE_ATTEMPTS + 1), NOW)).toBe(2000);
  });

  it('caps the pause: a growing delay, never a lock', () => {
    expect(waitMs(failures(40), NOW)).toBe(MAX_PAUSE_MS);
  });

  it('starts over after a quarter of an hour without failures', () => {
    const after = withFailure(failures(FREE_ATTEMPTS), NOW + MAX_PAUSE_MS + 1_001, FREE_ATTEMPTS);
    expect(after.failures).toBe(1);
    expect(waitMs(after, NOW + MAX_PAUSE_MS + 1_001)).toBe(0);
  });
});

/** The repository's contract in memory: decisions run one at a time on the current counts. */
class MemoryAttempts {
  readonly rows = new Map<string, Attempts>();
  private queue: Promise<unknown> = Promise.resolve();

  update<T>(keys: readonly string[], decide: (current: ReadonlyMap<string, Attempts>) => { result: T; write?: ReadonlyMap<string, Attempts> }): Promise<T> {
    const run = this.queue.then(() => {
      const current = new Map(keys.flatMap((key) => (this.rows.has(key) ? [[key, this.rows.get(key) as Attempts] as const] : [])));
      const { result, write } = decide(current);
      for (const [key, attempts] of write ?? []) this.rows.set(key, attempts);
      return result;
    });
    this.queue = run;
    return run;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.rows.delete(key);
  }
}

function throttle() {
  const repository = new MemoryAttempts();
  const clock = new ManualClock(NOW);
  return { repository, instance: new SignInThrottle(repository as unknown as SignInAttemptsRepository, clock) };
}

describe(SignInThrottle, () => {
  it('reserves the attempt before the password is checked: of many at once, only the free ones go', async () => {
    const { instance } = throttle();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => instance.reserve('demo', '10.0.0.1', { knownBrowser: false })));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(FREE_ATTEMPTS);
    expect(outcomes.find((outcome) => !outcome.ok)).toEqual({ ok: false, retryAfterMs: 1000 });
  });

  it('counts usernames case-insensitively and per address', async () => {
    const { instance } = throttle();
    for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) await instance.reserve('Demo', '10.0.0.1', { knownBrowser: false });
    expect((await instance.reserve('demo', '10.0.0.1', { knownBrowser: false })).ok).toBe(false);
    expect((await instance.reserve('demo', '10.0.0.2', { knownBrowser: false })).ok).toBe(true);
  });

  it('pauses an account attacked from many addresses, except for a browser that signed in as it before', async () => {
    const { instance } = throttle();
    for (let attempt = 0; attempt < ACCOUNT_FREE_ATTEMPTS; attempt += 1)
      expect((await instance.reserve('demo', `10.0.1.${attempt}`, { knownBrowser: false })).ok).toBe(true);
    expect(await instance.reserve('demo', '10.0.2.1', { knownBrowser: false })).toEqual({ ok: false, retryAfterMs: 1000 });
    expect((await instance.reserve('demo', '10.0.2.1', { knownBrowser: true })).ok).toBe(true);
  });

  it('forgets the keys of an attempt that succeeded', async () => {
    const { instance, repository } = throttle();
    const reservation = await instance.reserve('demo', '10.0.0.1', { knownBrowser: false });
    if (!reservation.ok) throw new Error('refused');
    await instance.succeeded(reservation);
    expect(repository.rows.size).toBe(0);
  });
});
