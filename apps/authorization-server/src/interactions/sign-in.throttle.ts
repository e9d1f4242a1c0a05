/** Failed attempts allowed before the first pause. */
export const FREE_ATTEMPTS = 5;
/** The longest pause between attempts. */
export const MAX_PAUSE_MS = 15 * 60_000;
/** How many username+address pairs are tracked at most (the oldest goes first). */
const MAX_TRACKED = 10_000;

interface Attempts {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

/**
 * Slows down password guessing per username and client address: after `FREE_ATTEMPTS` failures each
 * further one doubles the pause (1 s, 2 s, 4 s, ... up to 15 min); a success, or 15 minutes without a
 * failure, starts over. In memory, per process: replicas each count on their own, which bounds the
 * rate per replica (an operator adds a shared limiter at the proxy when that is not enough).
 */
export class SignInThrottle {
  private readonly attempts = new Map<string, Attempts>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The key of one username at one address (usernames are case-insensitive). */
  static key(username: string, address: string): string {
    return `${username.trim().toLowerCase()}\u0000${address}`;
  }

  /** Milliseconds to wait before the next attempt may be checked; 0 when it may go now. */
  retryAfterMs(key: string): number {
    const entry = this.current(key);
    return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0;
  }

  /** Counts a failed attempt. */
  recordFailure(key: string): void {
    const now = this.now();
    const entry = this.current(key) ?? { failures: 0, lastFailureAt: now, blockedUntil: 0 };
    entry.failures += 1;
    entry.lastFailureAt = now;
    if (entry.failures >= FREE_ATTEMPTS) entry.blockedUntil = now + Math.min(MAX_PAUSE_MS, 1000 * 2 ** (entry.failures - FREE_ATTEMPTS));
    this.attempts.delete(key);
    if (this.attempts.size >= MAX_TRACKED) {
      const oldest = this.attempts.keys().next();
      if (!oldest.done) this.attempts.delete(oldest.value);
    }
    this.attempts.set(key, entry);
  }

  /** A successful sign-in forgets the failures. */
  recordSuccess(key: string): void {
    this.attempts.delete(key);
  }

  private current(key: string): Attempts | undefined {
    const entry = this.attempts.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.lastFailureAt > MAX_PAUSE_MS && this.now() >= entry.blockedUntil) {
      this.attempts.delete(key);
      return undefined;
    }
    return entry;
  }
}
