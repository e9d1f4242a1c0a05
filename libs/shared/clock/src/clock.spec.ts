import { describe, expect, it } from 'vitest';
import { ManualClock, SystemClock } from './clock';
import { RandomIds, SequentialIds } from './ids';

describe('ManualClock', () => {
  it('stands still until advanced, then fires the timers due, in time order', () => {
    const clock = new ManualClock(1_000);
    const fired: string[] = [];
    clock.schedule(300, () => fired.push(`b@${clock.now()}`));
    clock.schedule(100, () => fired.push(`a@${clock.now()}`));
    clock.schedule(900, () => fired.push('late'));
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(fired).toEqual(['a@1100', 'b@1300']);
    expect(clock.now()).toBe(1_500);
    expect(clock.pending()).toBe(1);
  });

  it('fires a timer scheduled by a timer when it falls inside the same advance', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    clock.schedule(10, () => clock.schedule(10, () => fired.push(clock.now())));
    clock.advance(25);
    expect(fired).toEqual([20]);
  });

  it('cancels a scheduled timer, and a sleep when its signal aborts', async () => {
    const clock = new ManualClock(0);
    let fired = false;
    const cancel = clock.schedule(10, () => (fired = true));
    cancel();
    clock.advance(20);
    expect(fired).toBe(false);

    const controller = new AbortController();
    const sleeping = clock.sleep(1_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
  });

  it('resolves a sleep when time reaches it, and gives the time as a Date', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const sleeping = clock.sleep(60_000);
    clock.advance(60_000);
    await expect(sleeping).resolves.toBeUndefined();
    expect(clock.date().toISOString()).toBe('2026-06-01T00:01:00.000Z');
  });
});

describe('SystemClock', () => {
  it('rejects a sleep whose signal is already aborted, at once', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(new SystemClock().sleep(60_000, controller.signal)).rejects.toThrow('gone');
  });
});

describe('id sources', () => {
  it('gives distinct UUIDs, or predictable ids for tests', () => {
    const random = new RandomIds();
    const [a, b] = [random.newId(), random.newId()];
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    const sequential = new SequentialIds('task');
    expect([sequential.newId(), sequential.newId()]).toEqual(['task-1', 'task-2']);
  });
});
