import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskWaiters } from './task-waiters';

describe(TaskWaiters, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wakes every wait of a task at once, and only that task’s', async () => {
    const waiters = new TaskWaiters();
    const woken: string[] = [];
    void waiters.waitFor('a', 10_000).woken.then(() => woken.push('a1'));
    void waiters.waitFor('a', 10_000).woken.then(() => woken.push('a2'));
    void waiters.waitFor('b', 10_000).woken.then(() => woken.push('b'));
    waiters.wake('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a1', 'a2']);
    expect(waiters.size).toBe(1);
    waiters.onModuleDestroy();
  });

  it('ends a wait when its time is up, not before', async () => {
    const waiters = new TaskWaiters();
    let woken = false;
    void waiters.waitFor('a', 2_000).woken.then(() => (woken = true));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(woken).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it('forgets a cancelled wait and ends every wait when the module stops', async () => {
    const waiters = new TaskWaiters();
    const cancelled = waiters.waitFor('a', 10_000);
    cancelled.cancel();
    expect(waiters.size).toBe(0);
    let woken = false;
    void waiters.waitFor('b', 10_000).woken.then(() => (woken = true));
    waiters.onModuleDestroy();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toBe(true);
    expect(waiters.size).toBe(0);
  });
});
