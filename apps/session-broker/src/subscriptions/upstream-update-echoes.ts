import { toolExecutor } from '@mcp-platform/protocol-contracts';

/**
 * How close two `upstreamResourceUpdated` of one URI must be to count as one change heard twice. Every
 * tool executor replica holds its own connection to a source, and each subscribes to what the brokers'
 * clients hold, so one upstream change arrives once per replica within milliseconds. A later change of
 * the URI is never lost to it: a replica that heard a change sends the next one at the end of its
 * quiet interval (`UPSTREAM_UPDATE_MIN_INTERVAL_MS`), well after this window.
 */
export const UPSTREAM_UPDATE_ECHO_MS = toolExecutor.UPSTREAM_UPDATE_MIN_INTERVAL_MS / 4;

/** The most URIs remembered at once; past it, the oldest are forgotten first (an echo then gets through: a duplicate, never a loss). */
const MAX_REMEMBERED = 10_000;

/** The upstream updates this broker replica passed on lately, to let each change through once. */
export class UpstreamUpdateEchoes {
  /** When each `[tenant, uri]` was last passed on, oldest first. */
  private readonly passed = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether an update of `uri` is news (and remembered as passed on), or the echo of one passed on within the window. */
  isNews(tenant: string, uri: string): boolean {
    const key = JSON.stringify([tenant, uri]);
    const now = this.now();
    const last = this.passed.get(key);
    if (last !== undefined && now - last < UPSTREAM_UPDATE_ECHO_MS) return false;
    this.passed.delete(key);
    this.passed.set(key, now);
    this.forgetOld(now);
    return true;
  }

  /** How many URIs are remembered (for bounds and tests). */
  get size(): number {
    return this.passed.size;
  }

  private forgetOld(now: number): void {
    for (const [key, at] of this.passed) {
      if (now - at < UPSTREAM_UPDATE_ECHO_MS && this.passed.size <= MAX_REMEMBERED) return;
      this.passed.delete(key);
    }
  }
}
