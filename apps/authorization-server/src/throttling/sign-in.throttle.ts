import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Clock } from '@mcp-platform/shared-clock';
import { type Attempts, SignInAttemptsRepository } from './sign-in-attempts.repository';

/** Failed attempts of one username at one client address before the first pause. */
export const FREE_ATTEMPTS = 5;
/**
 * Failed attempts of one username from any address before the first pause: a guesser spreading its
 * attempts over many addresses is slowed down too, after more attempts than one person mistyping makes.
 */
export const ACCOUNT_FREE_ATTEMPTS = 20;
/** The longest pause between attempts; also how long a key is remembered after its last failure. */
export const MAX_PAUSE_MS = 15 * 60_000;
/** How often rows that block nothing any more are deleted. */
const CLEANUP_INTERVAL_MS = 5 * 60_000;

/** Whether a key's failures are over: a quarter of an hour without any, and no pause running. */
function isOver(attempts: Attempts, now: number): boolean {
  return now - attempts.lastFailureAt > MAX_PAUSE_MS && now >= attempts.blockedUntil;
}

/** Milliseconds before an attempt of the key may be checked; 0 when it may go now. */
export function waitMs(attempts: Attempts | undefined, now: number): number {
  return attempts && !isOver(attempts, now) ? Math.max(0, attempts.blockedUntil - now) : 0;
}

/**
 * The key's attempts with one more failure counted: from `free` failures on, each one doubles the
 * pause (1 s, 2 s, 4 s, ... up to `MAX_PAUSE_MS`), so the owner of the account is delayed, never locked out.
 */
export function withFailure(attempts: Attempts | undefined, now: number, free: number): Attempts {
  const failures = (attempts && !isOver(attempts, now) ? attempts.failures : 0) + 1;
  const blockedUntil = failures >= free ? now + Math.min(MAX_PAUSE_MS, 1000 * 2 ** (failures - free)) : 0;
  return { failures, lastFailureAt: now, blockedUntil };
}

/** The keys of one attempt that were reserved; `succeeded` forgets them. */
export interface Reservation {
  keys: string[];
}

/** An attempt may be checked (its failure counted in advance), or must wait. */
export type ReservationOutcome = ({ ok: true } & Reservation) | { ok: false; retryAfterMs: number };

/**
 * Slows down password guessing, cluster-wide, in the authorization server's own table: per username
 * at one client address (`FREE_ATTEMPTS`), and per username from anywhere (`ACCOUNT_FREE_ATTEMPTS`)
 * unless the browser signed in as that user before (a known browser: the account's owner gets past a
 * guesser working on the account from elsewhere). An attempt is counted as a failure *before* the
 * slow password check (`reserve`), under row locks, so attempts racing on any replica cannot exceed
 * the free ones; a success forgets the counts (`succeeded`). Rows are never evicted early: a flood of
 * attempts under other names changes nothing for a blocked one.
 */
@Injectable()
export class SignInThrottle implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SignInThrottle.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly attempts: SignInAttemptsRepository,
    private readonly clock: Clock,
  ) {}

  /** The key of one username at one address (usernames are case-insensitive). */
  static addressKey(username: string, address: string): string {
    // The address first: it never holds `|`, so any username reads back unambiguously.
    return `address:${address}|${normalize(username)}`;
  }

  /** The key of one username wherever the attempts come from. */
  static accountKey(username: string): string {
    return `account:${normalize(username)}`;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.clean(), CLEANUP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Counts the attempt as failed in advance when none of its keys is paused; answers the wait otherwise
   * (nothing counted). `knownBrowser`: the per-account key is left out.
   */
  async reserve(username: string, address: string, options: { knownBrowser: boolean }): Promise<ReservationOutcome> {
    const limits = new Map([[SignInThrottle.addressKey(username, address), FREE_ATTEMPTS]]);
    if (!options.knownBrowser) limits.set(SignInThrottle.accountKey(username), ACCOUNT_FREE_ATTEMPTS);
    const now = this.clock.now();
    return this.attempts.update<ReservationOutcome>([...limits.keys()], (current) => {
      const retryAfterMs = Math.max(...[...limits.keys()].map((key) => waitMs(current.get(key), now)));
      if (retryAfterMs > 0) return { result: { ok: false, retryAfterMs } };
      const write = new Map([...limits].map(([key, free]) => [key, withFailure(current.get(key), now, free)]));
      return { result: { ok: true, keys: [...limits.keys()] }, write };
    });
  }

  /** The attempt's password was right: its keys start over. */
  async succeeded(reservation: Reservation): Promise<void> {
    await this.attempts.delete(reservation.keys);
  }

  /** Deletes the rows that block nothing any more; failures are logged, the next run tries again. */
  async clean(): Promise<void> {
    const now = this.clock.date();
    try {
      const deleted = await this.attempts.deleteStale(new Date(now.getTime() - MAX_PAUSE_MS), now);
      if (deleted > 0) this.logger.debug(`forgot ${deleted} sign-in throttle row(s)`);
    } catch (error) {
      this.logger.warn(`cleaning the sign-in throttle failed: ${(error as Error).message}`);
    }
  }
}

function normalize(username: string): string {
  return username.trim().toLowerCase();
}
