import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessMessaging, type Job, type JobOutcome, MessagingModule, type MessagingOptions, NATS_CONNECTION, type Worker, WorkQueue } from '../src';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const run = `t${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
/** The test's JetStream stream, deleted after the run. */
const STREAM = `${run}-MCP_WORK`;
/** Short enough for a dead worker's job to come back within a test. */
const ACK_WAIT_MS = 1_500;

/** A promise the test settles by hand. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One process of the platform: its own NATS connection over NATS, the shared work queue in-process. */
async function startProcess(options: MessagingOptions): Promise<INestApplicationContext> {
  @Module({ imports: [MessagingModule.forRoot(options)] })
  class WorkQueueTestModule {}
  return NestFactory.createApplicationContext(WorkQueueTestModule, { logger: false });
}

const transports: Array<[string, () => MessagingOptions]> = [
  ['nats', () => ({ transport: 'nats', servers: NATS_URL, name: `work-queue-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run })],
  ['in-process', () => inProcessMessaging()],
];

describe.each(transports)('WorkQueue over %s', (name, platform) => {
  const options = platform();
  let first: INestApplicationContext;
  let second: INestApplicationContext;
  const contexts: INestApplicationContext[] = [];
  const workers: Worker[] = [];

  /** Starts a worker and remembers it for the cleanup. */
  function work(context: INestApplicationContext, queue: string, handler: (job: Job) => Promise<JobOutcome>, concurrency = 1, maxAttempts = 3): Worker {
    const worker = context.get(WorkQueue).work(queue, handler, { concurrency, maxAttempts, ackWaitMs: ACK_WAIT_MS });
    workers.push(worker);
    return worker;
  }

  beforeAll(async () => {
    first = await startProcess(options);
    second = await startProcess(options);
    contexts.push(first, second);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    if (name === 'nats' && first) {
      const jsm = await first.get<NatsConnection>(NATS_CONNECTION).jetstreamManager();
      await jsm.streams.delete(STREAM).catch(() => false);
    }
    await Promise.all(contexts.map((context) => context.close()));
  });

  it('hands each job to exactly one worker of two processes, and both share the load', async () => {
    const handledBy = new Map<string, string[]>();
    const handler =
      (processName: string) =>
      async (job: Job): Promise<JobOutcome> => {
        handledBy.set(job.data, [...(handledBy.get(job.data) ?? []), processName]);
        await sleep(50);
        return 'done';
      };
    const jobs = Array.from({ length: 20 }, (_, n) => `job-${n}`);
    for (const job of jobs) await first.get(WorkQueue).enqueue('once', { id: `${run}-once-${job}`, data: job });
    work(first, 'once', handler('first'), 2);
    work(second, 'once', handler('second'), 2);
    await expect.poll(() => handledBy.size, { timeout: 10_000 }).toBe(jobs.length);
    expect([...handledBy.keys()].sort()).toEqual([...jobs].sort());
    expect([...handledBy.values()].filter((processes) => processes.length !== 1)).toEqual([]);
    expect(new Set([...handledBy.values()].flat())).toEqual(new Set(['first', 'second']));
  });

  it('keeps at most `concurrency` jobs in progress in a worker', async () => {
    let inProgress = 0;
    let peak = 0;
    let done = 0;
    work(
      first,
      'concurrency',
      async () => {
        inProgress += 1;
        peak = Math.max(peak, inProgress);
        await sleep(100);
        inProgress -= 1;
        done += 1;
        return 'done';
      },
      3,
    );
    for (let n = 0; n < 10; n += 1) await second.get(WorkQueue).enqueue('concurrency', { id: `${run}-concurrency-${n}`, data: String(n) });
    await expect.poll(() => done, { timeout: 10_000 }).toBe(10);
    expect(peak).toBe(3);
  });

  it('delivers a job again with attempt 2 after the retry delay its handler asked for', async () => {
    const deliveries: Array<{ attempt: number; at: number }> = [];
    work(first, 'retry', async (job) => {
      deliveries.push({ attempt: job.attempt, at: Date.now() });
      return job.attempt === 1 ? { retryAfterMs: 500 } : 'done';
    });
    await first.get(WorkQueue).enqueue('retry', { id: `${run}-retry`, data: 'x' });
    await expect.poll(() => deliveries.map((delivery) => delivery.attempt), { timeout: 10_000 }).toEqual([1, 2]);
    const [firstDelivery, secondDelivery] = deliveries;
    expect((secondDelivery?.at ?? 0) - (firstDelivery?.at ?? 0)).toBeGreaterThanOrEqual(450);
  });

  it('keeps a job claimed while its handler runs longer than ackWaitMs', async () => {
    const attempts: number[] = [];
    let done = false;
    const slow = async (job: Job): Promise<JobOutcome> => {
      attempts.push(job.attempt);
      await sleep(ACK_WAIT_MS * 2.5);
      done = true;
      return 'done';
    };
    work(first, 'claimed', slow);
    work(second, 'claimed', slow);
    await first.get(WorkQueue).enqueue('claimed', { id: `${run}-claimed`, data: 'x' });
    await expect.poll(() => done, { timeout: 10_000 }).toBe(true);
    expect(attempts).toEqual([1]);
  });

  it('delivers the job once more with attempt maxAttempts + 1 when the handler keeps asking for retries, then never again', async () => {
    const attempts: number[] = [];
    work(first, 'give-up', async (job) => (attempts.push(job.attempt), { retryAfterMs: 100 }), 1, 2);
    await first.get(WorkQueue).enqueue('give-up', { id: `${run}-give-up`, data: 'x' });
    await expect.poll(() => attempts, { timeout: 10_000 }).toEqual([1, 2, 3]);
    // Well past the 100 ms retry delay and the 1.5 s ack wait: a fourth delivery would have come by then.
    await sleep(ACK_WAIT_MS + 500);
    expect(attempts).toEqual([1, 2, 3]);
    if (name === 'nats') {
      // Acknowledged, so the work-queue stream dropped it rather than keeping an undeliverable job forever.
      const jsm = await first.get<NatsConnection>(NATS_CONNECTION).jetstreamManager();
      await expect(jsm.streams.getMessage(STREAM, { last_by_subj: `${run}.work.give-up` })).rejects.toThrow(/no message found/i);
    }
  });

  it('ignores a second enqueue of the same id, from any process', async () => {
    const handled: string[] = [];
    await first.get(WorkQueue).enqueue('dedup', { id: `${run}-dedup`, data: 'original' });
    await second.get(WorkQueue).enqueue('dedup', { id: `${run}-dedup`, data: 'duplicate' });
    await first.get(WorkQueue).enqueue('dedup', { id: `${run}-dedup`, data: 'duplicate' });
    await first.get(WorkQueue).enqueue('dedup', { id: `${run}-dedup-sentinel`, data: 'sentinel' });
    work(second, 'dedup', async (job) => (handled.push(job.data), 'done'));
    // One worker, first in first out: a duplicate would be handled before the sentinel.
    await expect.poll(() => handled, { timeout: 10_000 }).toContain('sentinel');
    expect(handled).toEqual(['original', 'sentinel']);
  });

  it.runIf(name === 'nats')('delivers the job of a worker whose process died to another worker after ackWaitMs', async () => {
    const doomed = await startProcess(options);
    contexts.push(doomed);
    const hung = deferred<JobOutcome>();
    const started = deferred<Job>();
    let startedAt = 0;
    work(doomed, 'dead-worker', (job) => {
      startedAt = Date.now();
      started.resolve(job);
      return hung.promise;
    });
    await first.get(WorkQueue).enqueue('dead-worker', { id: `${run}-dead-worker`, data: 'x' });
    await expect(started.promise).resolves.toMatchObject({ attempt: 1 });
    // The process dies: no more progress signals, no ack, no nak.
    await doomed.get<NatsConnection>(NATS_CONNECTION).close();
    const redelivered: Job[] = [];
    let redeliveredAt = 0;
    work(second, 'dead-worker', async (job) => {
      redeliveredAt = Date.now();
      redelivered.push(job);
      return 'done';
    });
    await expect.poll(() => redelivered, { timeout: 10_000 }).toEqual([{ id: `${run}-dead-worker`, data: 'x', attempt: 2 }]);
    // Not before the ack wait ran out: the worker's progress signals held the job until its process died.
    expect(redeliveredAt - startedAt).toBeGreaterThanOrEqual(ACK_WAIT_MS - 100);
    hung.resolve('done');
  });

  it.runIf(name === 'nats')('brings the shared consumer to the options of the latest worker', async () => {
    const handler = async (): Promise<JobOutcome> => 'done';
    const queue = first.get(WorkQueue);
    await queue.work('reconfigured', handler, { concurrency: 1, maxAttempts: 2, ackWaitMs: ACK_WAIT_MS }).stop();
    const jsm = await first.get<NatsConnection>(NATS_CONNECTION).jetstreamManager();
    const before = await jsm.consumers.info(STREAM, 'work-reconfigured');
    expect({ maxDeliver: before.config.max_deliver, ackWait: before.config.ack_wait }).toEqual({ maxDeliver: 3, ackWait: ACK_WAIT_MS * 1e6 });
    const restarted = second.get(WorkQueue).work('reconfigured', handler, { concurrency: 1, maxAttempts: 5, ackWaitMs: 4_000 });
    workers.push(restarted);
    await expect
      .poll(
        async () => {
          const info = await jsm.consumers.info(STREAM, 'work-reconfigured');
          return { maxDeliver: info.config.max_deliver, ackWait: info.config.ack_wait };
        },
        { timeout: 5_000 },
      )
      .toEqual({ maxDeliver: 6, ackWait: 4_000 * 1e6 });
  });
});
