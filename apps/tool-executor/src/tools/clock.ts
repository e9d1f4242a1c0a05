import { Injectable } from '@nestjs/common';

/** Time as the executor sees it; injected so tests control it instead of waiting on real timers. */
export abstract class Clock {
  /** Epoch milliseconds. */
  abstract now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  abstract sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Runs `callback` after `ms`; the returned function cancels it. */
  abstract schedule(ms: number, callback: () => void): () => void;
}

@Injectable()
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

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}
