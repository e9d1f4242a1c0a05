import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/** A wait registered with `TaskWaiters.waitFor`. */
export interface TaskWait {
  /** Resolves when the task is woken, when the time is up, or when the module stops. */
  readonly woken: Promise<void>;
  /** Drops the wait early (its promise resolves). */
  cancel(): void;
}

/**
 * The `awaitTask` calls of this replica waiting for a task to change, by task id. Woken by this
 * replica's own updates and by other replicas' `taskStatusChanged` events; a wait also ends after its
 * time, so a lost wake-up costs a re-read, never a hang.
 */
@Injectable()
export class TaskWaiters implements OnModuleDestroy {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Registers a wait for `taskId` of at most `ms`; register before reading the task, so no change slips between. */
  waitFor(taskId: string, ms: number): TaskWait {
    let release: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      const timer = setTimeout(() => release(), ms);
      release = () => {
        clearTimeout(timer);
        const set = this.waiting.get(taskId);
        set?.delete(release);
        if (set?.size === 0) this.waiting.delete(taskId);
        resolve();
      };
    });
    const set = this.waiting.get(taskId) ?? new Set<() => void>();
    set.add(release);
    this.waiting.set(taskId, set);
    return { woken, cancel: release };
  }

  /** Ends every wait for `taskId`. */
  wake(taskId: string): void {
    for (const release of [...(this.waiting.get(taskId) ?? [])]) release();
  }

  /** How many waits are registered (tests, and nothing leaks). */
  get size(): number {
    let count = 0;
    for (const set of this.waiting.values()) count += set.size;
    return count;
  }

  onModuleDestroy(): void {
    for (const taskId of [...this.waiting.keys()]) this.wake(taskId);
  }
}
