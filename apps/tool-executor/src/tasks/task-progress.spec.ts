import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { taskScheduler } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { statusMessageOf, TaskProgress } from './task-progress';

const TASK_ID = 'task_0123456789abcdefABCD';

function setup(fail = false) {
  const reports: string[] = [];
  const bus = {
    request: async (contract: { subject: string }, payload: { statusMessage: string }) => {
      expect(contract.subject).toBe(taskScheduler.reportTaskProgress.subject);
      reports.push(payload.statusMessage);
      if (fail) throw new Error('scheduler away');
      return {};
    },
  } as unknown as MessageBus;
  return { progress: new TaskProgress(TASK_ID, bus, () => Date.now(), 5_000), reports };
}

describe(TaskProgress, () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports the first update at once, then the latest at most every interval', async () => {
    const { progress, reports } = setup();
    progress.update(1, 10, 'Step 1 of 10');
    progress.update(2, 10, 'Step 2 of 10');
    progress.update(3, 10, 'Step 3 of 10');
    expect(reports).toEqual(['Step 1 of 10']);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(reports).toEqual(['Step 1 of 10']);
    await vi.advanceTimersByTimeAsync(1);
    expect(reports).toEqual(['Step 1 of 10', 'Step 3 of 10']);
    // Quiet for longer than the interval: the next update goes at once.
    await vi.advanceTimersByTimeAsync(10_000);
    progress.update(4, 10);
    expect(reports).toEqual(['Step 1 of 10', 'Step 3 of 10', 'Progress: 4 of 10']);
  });

  it('drops what is pending once stopped, and reports nothing after', async () => {
    const { progress, reports } = setup();
    progress.update(1);
    progress.update(2);
    progress.stop();
    progress.update(3);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(reports).toEqual(['Progress: 1']);
  });

  it('goes on after a failed report', async () => {
    const { progress, reports } = setup(true);
    progress.update(1);
    await vi.advanceTimersByTimeAsync(6_000);
    progress.update(2);
    expect(reports).toEqual(['Progress: 1', 'Progress: 2']);
  });
});

describe(statusMessageOf, () => {
  it("uses the tool's message, else the figures, and shortens it to 500 characters", () => {
    expect(statusMessageOf(3, 10, 'Copying files')).toBe('Copying files');
    expect(statusMessageOf(3, 10, '  ')).toBe('Progress: 3 of 10');
    expect(statusMessageOf(0.5)).toBe('Progress: 0.5');
    const long = statusMessageOf(1, 2, 'x'.repeat(600));
    expect(long).toHaveLength(500);
    expect(long.endsWith('…')).toBe(true);
  });
});
