import type { Clock } from '@mcp-platform/shared-clock';

/**
 * At most one delivery per key each `intervalMs`: the first change of a key is delivered at once, the
 * ones during the following interval become one delivery at its end (none is lost, a flood is one a
 * second). A key costs one timer while it is busy, nothing after.
 */
export class UpdateCoalescer {
  /** Keys in their quiet interval, and whether a change arrived during it. */
  private readonly busy = new Map<string, { again: boolean }>();

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  /** A change of `key`: `deliver` runs now, or once at the end of the key's interval. */
  changed(key: string, deliver: () => void): void {
    const state = this.busy.get(key);
    if (state) {
      state.again = true;
      return;
    }
    deliver();
    this.quiet(key, deliver);
  }

  /** How many keys are in their interval (for tests and bounds). */
  get size(): number {
    return this.busy.size;
  }

  private quiet(key: string, deliver: () => void): void {
    const state = { again: false };
    this.busy.set(key, state);
    this.clock.schedule(this.intervalMs, () => {
      this.busy.delete(key);
      if (!state.again) return;
      deliver();
      this.quiet(key, deliver);
    });
  }
}
