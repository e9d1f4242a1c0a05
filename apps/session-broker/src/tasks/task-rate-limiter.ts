import type { Principal } from '@mcp-platform/protocol-contracts';

/** How many requesters are tracked at most; beyond it the least recently seen goes first. */
export const MAX_TRACKED_REQUESTERS = 10_000;
/** The smallest burst, so that a low rate still lets a client create a task and poll it a few times at once. */
const MIN_BURST = 10;
/** A requester refused again is reported at most this often (S-292). */
const REPORT_INTERVAL_MS = 60_000;

/** What taking a token decided. */
export type TaskRateDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** Whole seconds until the requester has a token again (at least 1): the `Retry-After` value. */
      retryAfterSeconds: number;
      /** True for the first refusal of this requester in a minute: worth a WARN, the others are not. */
      report: boolean;
      /** Refusals since the last report, this one included (only meaningful when `report` is true). */
      refusedSinceReport: number;
    };

/** How a `TaskRateLimiter` counts. */
export interface TaskRateLimiterOptions {
  /** The refill rate per requester; `0` disables the limit. */
  operationsPerMinute: number;
  /** The clock, in milliseconds (tests pass their own). */
  now?: () => number;
  /** Requesters tracked at most (default `MAX_TRACKED_REQUESTERS`). */
  maxRequesters?: number;
}

/** A token's worth of credit: credit refills by `operationsPerMinute` a millisecond, so integer clocks count exactly. */
const TOKEN = 60_000;

interface Bucket {
  /** In `TOKEN`ths of a token. */
  credit: number;
  /** When `credit` was last brought up to date, and the requester last seen. */
  updatedAt: number;
  /** When a refusal of this requester was last reported; `-Infinity` before the first. */
  reportedAt: number;
  refusedSinceReport: number;
}

/**
 * A token bucket per requester for the task operations (S-291): it refills at `operationsPerMinute`
 * and holds a tenth of a minute's worth (at least `MIN_BURST`), so a client may create a task and
 * poll it in a burst but not poll in a tight loop. In memory, per replica: behind N broker replicas a
 * requester gets up to N times the rate.
 *
 * Memory stays bounded without a timer: buckets are kept in order of last use, and a bucket idle long
 * enough to be full again (and past its report interval) holds nothing a fresh one would not, so it is
 * dropped when the next requester comes by; above `maxRequesters` the least recently seen goes too.
 */
export class TaskRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly maxRequesters: number;
  /** The most credit a bucket holds: the burst, in `TOKEN`ths. */
  private readonly capacity: number;
  /** After this long unused a bucket is full and its report interval over. */
  private readonly idleMs: number;

  constructor(private readonly options: TaskRateLimiterOptions) {
    if (!Number.isInteger(options.operationsPerMinute) || options.operationsPerMinute < 0) {
      throw new Error(`operationsPerMinute must be a non-negative integer, not ${options.operationsPerMinute}`);
    }
    this.now = options.now ?? Date.now;
    this.maxRequesters = options.maxRequesters ?? MAX_TRACKED_REQUESTERS;
    if (!Number.isInteger(this.maxRequesters) || this.maxRequesters < 1) throw new Error(`maxRequesters must be a positive integer, not ${this.maxRequesters}`);
    this.capacity = Math.max(MIN_BURST, Math.ceil(options.operationsPerMinute / 10)) * TOKEN;
    this.idleMs = options.operationsPerMinute === 0 ? 0 : Math.max(REPORT_INTERVAL_MS, Math.ceil(this.capacity / options.operationsPerMinute));
  }

  /** The configured rate per requester and minute; `0` when the limit is off. */
  get operationsPerMinute(): number {
    return this.options.operationsPerMinute;
  }

  /** How many requesters are tracked now. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Who a task operation counts against: the principal's tenant and subject (not its OAuth client:
   * clients register for free, so each would bring a fresh allowance); an anonymous caller (development
   * tenants only) by its legacy session when it has one, else the tenant's anonymous callers share one
   * allowance. A fresh legacy session is a fresh allowance, which is as far as anonymous callers can be
   * told apart.
   */
  static requesterKey(principal: Pick<Principal, 'tenant' | 'subject' | 'anonymous'>, sessionId?: string): string {
    if (!principal.anonymous) return JSON.stringify(['principal', principal.tenant, principal.subject]);
    return sessionId === undefined ? JSON.stringify(['anonymous', principal.tenant]) : JSON.stringify(['anonymous-session', principal.tenant, sessionId]);
  }

  /** Takes one token of `key`'s bucket, or says how long until there is one. */
  take(key: string): TaskRateDecision {
    if (this.options.operationsPerMinute === 0) return { allowed: true };
    const now = this.now();
    const rate = this.options.operationsPerMinute;
    const bucket = this.buckets.get(key) ?? { credit: this.capacity, updatedAt: now, reportedAt: -Infinity, refusedSinceReport: 0 };
    // A clock stepping back refills nothing, and the time it gives back is not refilled twice.
    bucket.credit = Math.min(this.capacity, bucket.credit + Math.max(0, now - bucket.updatedAt) * rate);
    bucket.updatedAt = Math.max(bucket.updatedAt, now);
    // Re-inserted: the map stays in order of last use, the idlest first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    this.evict(now);
    if (bucket.credit >= TOKEN) {
      bucket.credit -= TOKEN;
      return { allowed: true };
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((TOKEN - bucket.credit) / rate / 1_000));
    bucket.refusedSinceReport += 1;
    if (now - bucket.reportedAt < REPORT_INTERVAL_MS)
      return { allowed: false, retryAfterSeconds, report: false, refusedSinceReport: bucket.refusedSinceReport };
    const refusedSinceReport = bucket.refusedSinceReport;
    bucket.reportedAt = now;
    bucket.refusedSinceReport = 0;
    return { allowed: false, retryAfterSeconds, report: true, refusedSinceReport };
  }

  /** Drops the idle buckets at the front, then the least recently seen ones above the cap. */
  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.buckets.size <= this.maxRequesters && now - bucket.updatedAt < this.idleMs) return;
      this.buckets.delete(key);
    }
  }
}
