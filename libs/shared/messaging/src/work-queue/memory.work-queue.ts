import { Logger } from '@nestjs/common';
import {
  assertJobId,
  assertQueueName,
  type Job,
  type JobOutcome,
  resolveWorkerOptions,
  runHandler,
  settleWithin,
  WORK_QUEUE_DEDUP_WINDOW_MS,
  type Worker,
  WORKER_STOP_TIMEOUT_MS,
  type WorkerOptions,
  WorkQueue,
} from './work-queue';

const logger = new Logger('MemoryWorkQueue');

interface QueuedJob {
  id: string;
  data: string;
  /** Deliveries so far. */
  deliveries: number;
}

/** One queue's jobs and workers. */
class MemoryQueue {
  /** Jobs available now, oldest first. */
  private readonly ready: QueuedJob[] = [];
  /** Workers taking jobs, in start order. */
  private workers: MemoryWorker[] = [];
  /** The worker offered the next job first, so workers with free slots take turns. */
  private turn = 0;

  add(job: QueuedJob): void {
    this.ready.push(job);
    this.dispatch();
  }

  join(worker: MemoryWorker): void {
    this.workers.push(worker);
    this.dispatch();
  }

  leave(worker: MemoryWorker): void {
    this.workers = this.workers.filter((candidate) => candidate !== worker);
  }

  /** Makes a job available again after `delayMs`. */
  retry(job: QueuedJob, delayMs: number): void {
    setTimeout(() => this.add(job), delayMs);
  }

  /** Hands ready jobs to workers with free slots, taking turns, until either runs out. */
  dispatch(): void {
    while (this.ready.length) {
      const worker = this.nextFreeWorker();
      const job = worker && this.ready.shift();
      if (!worker || !job) return;
      worker.take(job);
    }
  }

  private nextFreeWorker(): MemoryWorker | undefined {
    const count = this.workers.length;
    for (let offset = 0; offset < count; offset += 1) {
      const index = (this.turn + offset) % count;
      const worker = this.workers[index];
      if (worker?.hasFreeSlot) {
        this.turn = (index + 1) % count;
        return worker;
      }
    }
    return undefined;
  }
}

class MemoryWorker implements Worker {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  private readonly options: Required<WorkerOptions>;

  constructor(
    private readonly name: string,
    private readonly queue: MemoryQueue,
    private readonly handler: (job: Job) => Promise<JobOutcome>,
    options: WorkerOptions,
  ) {
    this.options = resolveWorkerOptions(options);
  }

  get hasFreeSlot(): boolean {
    return !this.stopped && this.running.size < this.options.concurrency;
  }

  take(job: QueuedJob): void {
    job.deliveries += 1;
    const attempt = job.deliveries;
    // Started on a later microtask, like a delivery over the network: never on the enqueuer's stack.
    const run = Promise.resolve()
      .then(() => runHandler(this.name, this.handler, { id: job.id, data: job.data, attempt }, logger))
      .then((outcome) => {
        // The give-up delivery is the last one, whatever the handler answered.
        if (outcome !== 'done' && attempt <= this.options.maxAttempts) this.queue.retry(job, outcome);
      })
      .finally(() => {
        this.running.delete(run);
        this.queue.dispatch();
      });
    this.running.add(run);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.leave(this);
    await settleWithin(Promise.allSettled([...this.running]), WORKER_STOP_TIMEOUT_MS);
  }
}

/**
 * Embedded-mode work queue: FIFO arrays per queue, shared by everything in the process through
 * `inProcessMessaging()`, with the JetStream queue's semantics minus crashes (nothing dies without its handler
 * settling, so `ackWaitMs` never triggers a redelivery here). Ids are deduplicated across all queues, as over NATS.
 */
export class MemoryWorkQueue extends WorkQueue {
  private readonly queues = new Map<string, MemoryQueue>();
  /** Enqueued ids with when they were enqueued, oldest first. */
  private readonly seen = new Map<string, number>();

  async enqueue(queue: string, job: { id: string; data: string }): Promise<void> {
    assertQueueName(queue);
    assertJobId(job.id);
    const now = Date.now();
    for (const [id, at] of this.seen) {
      if (at > now - WORK_QUEUE_DEDUP_WINDOW_MS) break;
      this.seen.delete(id);
    }
    if (this.seen.has(job.id)) return;
    this.seen.set(job.id, now);
    this.entry(queue).add({ id: job.id, data: job.data, deliveries: 0 });
  }

  work(queue: string, handler: (job: Job) => Promise<JobOutcome>, options: WorkerOptions): Worker {
    assertQueueName(queue);
    const entry = this.entry(queue);
    const worker = new MemoryWorker(queue, entry, handler, options);
    entry.join(worker);
    return worker;
  }

  private entry(queue: string): MemoryQueue {
    let entry = this.queues.get(queue);
    if (!entry) {
      entry = new MemoryQueue();
      this.queues.set(queue, entry);
    }
    return entry;
  }
}
