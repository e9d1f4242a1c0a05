import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryWorkQueue } from './memory.work-queue';
import type { Job, JobOutcome } from './work-queue';

/** A promise the test settles by hand. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Lets queued microtasks (deliveries, settlements) run without moving the clock. */
const settle = async (): Promise<void> => {
  await vi.advanceTimersByTimeAsync(0);
};

describe(MemoryWorkQueue, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  describe('enqueue', () => {
    it('refuses an invalid queue name or job id', async () => {
      const queue = new MemoryWorkQueue();
      await expect(queue.enqueue('a.b', { id: 'x', data: '' })).rejects.toThrow(/invalid work queue name/);
      await expect(queue.enqueue('q'.repeat(65), { id: 'x', data: '' })).rejects.toThrow(/invalid work queue name/);
      await expect(queue.enqueue('q', { id: '', data: '' })).rejects.toThrow(/invalid job id/);
      await expect(queue.enqueue('q', { id: 'a\r\nb', data: '' })).rejects.toThrow(/invalid job id/);
    });

    it('ignores a second job with the same id within 2 minutes, even on another queue, and accepts it after', async () => {
      const queue = new MemoryWorkQueue();
      const handled: string[] = [];
      const workers = ['a', 'b'].map((name) =>
        queue.work(name, async (job) => (handled.push(`${name}:${job.data}`), 'done'), { concurrency: 1, maxAttempts: 3 }),
      );
      await queue.enqueue('a', { id: 'job-1', data: 'first' });
      await settle();
      await vi.advanceTimersByTimeAsync(60_000);
      await queue.enqueue('a', { id: 'job-1', data: 'again' });
      await queue.enqueue('b', { id: 'job-1', data: 'elsewhere' });
      await settle();
      expect(handled).toEqual(['a:first']);
      await vi.advanceTimersByTimeAsync(60_000);
      await queue.enqueue('a', { id: 'job-1', data: 'later' });
      await settle();
      expect(handled).toEqual(['a:first', 'a:later']);
      await Promise.all(workers.map((worker) => worker.stop()));
    });
  });

  describe('work', () => {
    it('delivers jobs first in, first out, with attempt 1, and never on the enqueuer’s stack', async () => {
      const queue = new MemoryWorkQueue();
      const handled: Job[] = [];
      const worker = queue.work('q', async (job) => (handled.push(job), 'done'), { concurrency: 1, maxAttempts: 3 });
      void queue.enqueue('q', { id: '1', data: 'one' });
      void queue.enqueue('q', { id: '2', data: 'two' });
      expect(handled).toEqual([]);
      await settle();
      expect(handled).toEqual([
        { id: '1', data: 'one', attempt: 1 },
        { id: '2', data: 'two', attempt: 1 },
      ]);
      await worker.stop();
    });

    it('hands queued jobs to a worker that starts later', async () => {
      const queue = new MemoryWorkQueue();
      await queue.enqueue('q', { id: '1', data: 'waiting' });
      const handled: string[] = [];
      const worker = queue.work('q', async (job) => (handled.push(job.data), 'done'), { concurrency: 1, maxAttempts: 3 });
      await settle();
      expect(handled).toEqual(['waiting']);
      await worker.stop();
    });

    it('keeps at most `concurrency` jobs in progress per worker, and starts the next when one settles', async () => {
      const queue = new MemoryWorkQueue();
      const gates = new Map<string, { promise: Promise<JobOutcome>; resolve: (value: JobOutcome) => void }>();
      const started: string[] = [];
      const worker = queue.work(
        'q',
        (job) => {
          started.push(job.id);
          const gate = deferred<JobOutcome>();
          gates.set(job.id, gate);
          return gate.promise;
        },
        { concurrency: 2, maxAttempts: 3 },
      );
      for (const id of ['1', '2', '3', '4']) await queue.enqueue('q', { id, data: id });
      await settle();
      expect(started).toEqual(['1', '2']);
      gates.get('1')?.resolve('done');
      await settle();
      expect(started).toEqual(['1', '2', '3']);
      for (const id of ['2', '3']) gates.get(id)?.resolve('done');
      await settle();
      expect(started).toEqual(['1', '2', '3', '4']);
      gates.get('4')?.resolve('done');
      await worker.stop();
    });

    it('shares a queue between workers: each job is handled once, by one of them', async () => {
      const queue = new MemoryWorkQueue();
      const handledBy = new Map<string, string[]>();
      const workers = ['w1', 'w2'].map((name) =>
        queue.work(
          'q',
          async (job) => {
            handledBy.set(job.id, [...(handledBy.get(job.id) ?? []), name]);
            await new Promise((resolve) => setTimeout(resolve, 10));
            return 'done';
          },
          { concurrency: 1, maxAttempts: 3 },
        ),
      );
      for (let n = 0; n < 6; n += 1) await queue.enqueue('q', { id: `job-${n}`, data: '' });
      await vi.advanceTimersByTimeAsync(100);
      expect([...handledBy.keys()].sort()).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'job-4', 'job-5']);
      expect([...handledBy.values()].every((names) => names.length === 1)).toBe(true);
      expect(new Set([...handledBy.values()].flat())).toEqual(new Set(['w1', 'w2']));
      await Promise.all(workers.map((worker) => worker.stop()));
    });

    it('delivers a job again with the next attempt once its retry delay passed, not before', async () => {
      const queue = new MemoryWorkQueue();
      const attempts: number[] = [];
      const worker = queue.work('q', async (job) => (attempts.push(job.attempt), job.attempt === 1 ? { retryAfterMs: 5_000 } : 'done'), {
        concurrency: 1,
        maxAttempts: 3,
      });
      await queue.enqueue('q', { id: '1', data: '' });
      await settle();
      await vi.advanceTimersByTimeAsync(4_999);
      expect(attempts).toEqual([1]);
      await vi.advanceTimersByTimeAsync(1);
      expect(attempts).toEqual([1, 2]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(attempts).toEqual([1, 2]);
      await worker.stop();
    });

    it('logs a handler that throws and retries its job after a second', async () => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const queue = new MemoryWorkQueue();
      const attempts: number[] = [];
      const worker = queue.work(
        'q',
        async (job) => {
          attempts.push(job.attempt);
          if (job.attempt === 1) throw new Error('boom');
          return 'done';
        },
        { concurrency: 1, maxAttempts: 3 },
      );
      await queue.enqueue('q', { id: 'j', data: '' });
      await settle();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('boom'));
      await vi.advanceTimersByTimeAsync(999);
      expect(attempts).toEqual([1]);
      await vi.advanceTimersByTimeAsync(1);
      expect(attempts).toEqual([1, 2]);
      await worker.stop();
    });

    it('gives up after maxAttempts: one more delivery with attempt maxAttempts + 1, then none whatever it returns', async () => {
      const queue = new MemoryWorkQueue();
      const attempts: number[] = [];
      const worker = queue.work('q', async (job) => (attempts.push(job.attempt), { retryAfterMs: 100 }), { concurrency: 1, maxAttempts: 2 });
      await queue.enqueue('q', { id: 'j', data: '' });
      await vi.advanceTimersByTimeAsync(10_000);
      expect(attempts).toEqual([1, 2, 3]);
      await worker.stop();
    });
  });

  describe('stop', () => {
    it('stops taking jobs and waits for the running handler, whose outcome still counts', async () => {
      const queue = new MemoryWorkQueue();
      const gate = deferred<JobOutcome>();
      const first: Job[] = [];
      const worker = queue.work('q', (job) => (first.push(job), gate.promise), { concurrency: 2, maxAttempts: 3 });
      await queue.enqueue('q', { id: '1', data: '' });
      await settle();
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await queue.enqueue('q', { id: '2', data: '' });
      await settle();
      expect(first.map((job) => job.id)).toEqual(['1']);
      expect(stopped).toBe(false);
      gate.resolve({ retryAfterMs: 10 });
      await stopping;
      // The retried job and the one enqueued meanwhile go to the next worker.
      const second: Job[] = [];
      const next = queue.work('q', async (job) => (second.push(job), 'done'), { concurrency: 2, maxAttempts: 3 });
      await vi.advanceTimersByTimeAsync(10);
      expect(second).toEqual([
        { id: '2', data: '', attempt: 1 },
        { id: '1', data: '', attempt: 2 },
      ]);
      await next.stop();
    });

    it('waits at most 10 seconds for a handler that never settles', async () => {
      const queue = new MemoryWorkQueue();
      const worker = queue.work('q', () => new Promise<JobOutcome>(() => undefined), { concurrency: 1, maxAttempts: 3 });
      await queue.enqueue('q', { id: '1', data: '' });
      await settle();
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(stopped).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await stopping;
      expect(stopped).toBe(true);
    });
  });

  it('refuses options it cannot honour', () => {
    const queue = new MemoryWorkQueue();
    const handler = async (): Promise<JobOutcome> => 'done';
    expect(() => queue.work('q', handler, { concurrency: 0, maxAttempts: 3 })).toThrow(/concurrency/);
    expect(() => queue.work('q', handler, { concurrency: 1, maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => queue.work('q', handler, { concurrency: 1, maxAttempts: 1, ackWaitMs: 10 })).toThrow(/ackWaitMs/);
  });
});
