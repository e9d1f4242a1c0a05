import type { Logger } from '@nestjs/common';

/** One job as a worker receives it. */
export interface Job {
  /** The producer's id, the key {@link WorkQueue.enqueue} deduplicates on. */
  id: string;
  data: string;
  /** 1 on the first delivery, 2 on the first redelivery, and so on; `maxAttempts + 1` on the give-up delivery. */
  attempt: number;
}

/** What a handler made of a job: finished (acknowledged, never delivered again), or to be tried again later. */
export type JobOutcome = 'done' | { retryAfterMs: number };

export interface WorkerOptions {
  /** Jobs in progress at once in this process (for this worker). */
  concurrency: number;
  /**
   * Deliveries before the queue gives up: the job is then delivered once more with `attempt = maxAttempts + 1`
   * so the handler can record the failure, and whatever it returns it is not delivered again.
   */
  maxAttempts: number;
  /**
   * A job whose worker stops confirming it is alive for this long is delivered again (default 30 s). Workers
   * confirm every third of it while their handler runs, so it bounds how long a dead worker holds a job.
   */
  ackWaitMs?: number;
}

/** A running worker of one queue. */
export interface Worker {
  /**
   * Stops taking jobs and waits for the handlers still running to settle, at most {@link WORKER_STOP_TIMEOUT_MS};
   * a handler still running then keeps its job claimed until it settles (or, over NATS, its process dies).
   */
  stop(): Promise<void>;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;
/** How long an enqueued id is remembered, so a producer retrying an enqueue does not create a second job. */
export const WORK_QUEUE_DEDUP_WINDOW_MS = 2 * 60_000;
/** The retry delay of a job whose handler threw. */
export const THROWN_RETRY_AFTER_MS = 1_000;
/** How long {@link Worker.stop} waits for running handlers. */
export const WORKER_STOP_TIMEOUT_MS = 10_000;

/**
 * Hands jobs to workers, at least once: the durable queue the task scheduler uses to give tool calls run as MCP
 * tasks to tool-executor replicas (NATS JetStream in distributed mode, in memory in embedded mode). Inject it as
 * `WorkQueue`.
 *
 * A job is claimed by one worker of all processes at a time. It is delivered again when its handler asks for a retry
 * or throws, and (over NATS) when its worker's process stops confirming it is alive for `ackWaitMs`, e.g. because it
 * died; so a handler must tolerate running a job twice, even concurrently with a presumed-dead worker still finishing
 * it. Order is first in, first out on the first delivery, not across retries. Every process working a queue should
 * pass the same {@link WorkerOptions}: over NATS the last process to start sets `ackWaitMs` and `maxAttempts` for all.
 */
export abstract class WorkQueue {
  /**
   * Stores one job on `queue` (1 to 64 characters of `[A-Za-z0-9_-]`); resolves once it is durable. A second enqueue
   * with the same `id` within the dedup window ({@link WORK_QUEUE_DEDUP_WINDOW_MS}, 2 minutes) is ignored, even when
   * the first job was already done, so a producer may retry an enqueue whose outcome it did not learn. Ids are
   * deduplicated across all queues of the platform (JetStream deduplicates per stream), so they must be unique
   * across queues. An id is 1 to 256 printable ASCII characters (it travels in a NATS header).
   */
  abstract enqueue(queue: string, job: { id: string; data: string }): Promise<void>;
  /**
   * Runs `handler` for the jobs of `queue`, each delivered to one worker of all processes at a time, at most
   * `concurrency` at once in this worker; several workers of a queue (in one process or many) share its jobs.
   * Resolving `'done'` acknowledges the job. Resolving `{ retryAfterMs }` makes it available again after that delay
   * and counts as an attempt; a throw is logged and counts as `{ retryAfterMs: 1000 }`. After `maxAttempts`
   * deliveries the job is delivered once more with `attempt = maxAttempts + 1` and then dropped, whatever the
   * handler does. While the handler runs the job stays claimed (over NATS the worker confirms it every
   * `ackWaitMs / 3`).
   */
  abstract work(queue: string, handler: (job: Job) => Promise<JobOutcome>, options: WorkerOptions): Worker;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Job ids travel in a NATS header: printable, no line breaks. */
const JOB_ID = /^[\x21-\x7e][\x20-\x7e]{0,255}$/;

/** Throws unless `queue` is a valid queue name: 1 to 64 letters, digits, `_` and `-` (it becomes a subject token). */
export function assertQueueName(queue: string): void {
  if (!QUEUE_NAME.test(queue)) throw new Error(`invalid work queue name ${JSON.stringify(queue)}: 1 to 64 letters, digits, _ and -`);
}

/** Throws unless `id` is a valid job id: 1 to 256 printable ASCII characters, not starting with a space. */
export function assertJobId(id: string): void {
  if (!JOB_ID.test(id)) throw new Error(`invalid job id ${JSON.stringify(id)}: 1 to 256 printable ASCII characters`);
}

/** Throws unless the options are usable; resolves the default `ackWaitMs`. */
export function resolveWorkerOptions(options: WorkerOptions): Required<WorkerOptions> {
  const { concurrency, maxAttempts, ackWaitMs = DEFAULT_ACK_WAIT_MS } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new Error(`invalid worker concurrency ${String(concurrency)}: an integer of at least 1`);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) throw new Error(`invalid worker maxAttempts ${String(maxAttempts)}: an integer of at least 1`);
  if (!Number.isSafeInteger(ackWaitMs) || ackWaitMs < 1_000) throw new Error(`invalid worker ackWaitMs ${String(ackWaitMs)}: an integer of at least 1000`);
  return { concurrency, maxAttempts, ackWaitMs };
}

/**
 * Runs the handler and resolves how to settle the job: `'done'`, or the delay before it is delivered again. A throw
 * or a rejection is logged and retried after {@link THROWN_RETRY_AFTER_MS}; a retry delay that is not a finite
 * number of at least 0 is read as that too.
 */
export async function runHandler(queue: string, handler: (job: Job) => Promise<JobOutcome>, job: Job, logger: Logger): Promise<'done' | number> {
  try {
    const outcome = await handler(job);
    if (outcome === 'done') return 'done';
    const delay = outcome.retryAfterMs;
    return Number.isFinite(delay) && delay >= 0 ? Math.round(delay) : THROWN_RETRY_AFTER_MS;
  } catch (error) {
    logger.warn(
      `work queue ${queue}: job ${job.id} failed on attempt ${job.attempt}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return THROWN_RETRY_AFTER_MS;
  }
}

/** Waits for `work` to settle, at most `ms`. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([work.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
