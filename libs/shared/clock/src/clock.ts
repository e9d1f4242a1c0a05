/**
 * Time as the platform's services see it, injected (a Nest provider token) so tests move it instead of
 * waiting: `SystemClock` in the apps, `ManualClock` in tests.
 */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  abstract sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Runs `callback` after `ms`; the returned function cancels it. */
  abstract schedule(ms: number, callback: () => void): () => void;

  /** The current time as a `Date`. */
  date(): Date {
    return new Date(this.now());
  }
}

/** The real time and timers. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  schedule(ms: number, callback: () => void): () => void {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  }
}

/**
 * A clock that moves only when the test says so: `advance(ms)` runs, in time order, every timer that
 * falls due meanwhile. Starts at `start` (epoch ms; default 2026-01-01).
 */
export class ManualClock extends Clock {
  private current: number;
  private timers: Array<{ at: number; seq: number; callback: () => void }> = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    super();
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms`, firing the timers due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = target;
  }

  /** Timers waiting to fire. */
  pending(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const cancel = this.schedule(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      const onAbort = (): void => {
        cancel();
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  schedule(ms: number, callback: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((entry) => entry !== timer);
    };
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}
