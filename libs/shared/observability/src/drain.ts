/**
 * A provider or controller holding work at shutdown. `runService` calls `onDrain` on every one, at
 * once, when the process is asked to stop (SIGTERM, SIGINT, `app.close()`), before Nest's own shutdown
 * hooks: the HTTP server and the bus still work. A participant takes no new work from then on, lets
 * what is in flight finish until `deadline` (epoch milliseconds), then ends what is left so that whoever
 * waits for it is told (an error answer, a stream closed so its client resumes elsewhere), and resolves.
 */
export interface OnDrain {
  onDrain(deadline: number): Promise<void> | void;
}

/** Whether `instance` takes part in the drain. */
export function isDrainable(instance: unknown): instance is OnDrain {
  return typeof instance === 'object' && instance !== null && typeof (instance as Partial<OnDrain>).onDrain === 'function';
}

/** How often a drain looks whether its work in flight is done. */
const DRAIN_POLL_MS = 50;

/**
 * Resolves once `idle()` says nothing is left, or at `deadline`, whichever comes first; `tick` runs at
 * every look (a participant may hand work over as it becomes possible). Resolves `true` when idle.
 */
export async function drainUntil(deadline: number, idle: () => boolean, tick?: () => void): Promise<boolean> {
  for (;;) {
    tick?.();
    if (idle()) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, left)));
  }
}
