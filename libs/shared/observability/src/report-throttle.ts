/** How often one key's event is reported at most. */
export const REPORT_INTERVAL_MS = 60_000;
/** How many keys are tracked at most; beyond it the one reported longest ago goes first. */
const MAX_TRACKED_KEYS = 10_000;

interface Tally {
  reportedAt: number;
  /** Events since the last report, reported or not. */
  since: number;
}

/**
 * Which of many repeated events deserve a log line: the first of a key in each interval, saying how many
 * there were since the previous line (like the task rate limiter's warnings, S-292), so a caller hitting a
 * cap ten thousand times writes a line a minute, not ten thousand. Memory stays bounded: a key reported
 * an interval ago holds nothing a fresh one would not, and above the cap the oldest goes.
 */
export class ReportThrottle {
  private readonly tallies = new Map<string, Tally>();
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly maxKeys: number;

  constructor(options: { intervalMs?: number; maxKeys?: number; now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
    this.intervalMs = options.intervalMs ?? REPORT_INTERVAL_MS;
    this.maxKeys = options.maxKeys ?? MAX_TRACKED_KEYS;
  }

  /** Counts one event of `key`: the number of events since the last report when this one is to be reported, else `undefined`. */
  note(key: string): number | undefined {
    const now = this.now();
    const tally = this.tallies.get(key);
    if (tally && now - tally.reportedAt < this.intervalMs) {
      tally.since += 1;
      return undefined;
    }
    const since = (tally?.since ?? 0) + 1;
    // Re-inserted: the map stays in order of last report, the stalest first.
    this.tallies.delete(key);
    this.tallies.set(key, { reportedAt: now, since: 0 });
    for (const [stale, old] of this.tallies) {
      if (this.tallies.size <= this.maxKeys && now - old.reportedAt < this.intervalMs) break;
      this.tallies.delete(stale);
    }
    return since;
  }
}
