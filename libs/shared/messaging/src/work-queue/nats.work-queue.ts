import { Logger } from '@nestjs/common';
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerMessages,
  DeliverPolicy,
  DiscardPolicy,
  type JsMsg,
  nanos,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { apiErrorCode, JetStreamStream } from '../transports/jetstream-stream';
import { SubjectNaming } from '../transports/subject-naming';
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

/** JetStream's answer (NATS 2.10+) when a durable consumer exists with another configuration (we update it then). */
const CONSUMER_EXISTS = 10148;
/** The header JetStream deduplicates on. */
const MSG_ID_HEADER = 'Nats-Msg-Id';
/** How long one pull request waits for jobs before the worker issues the next one. */
const FETCH_EXPIRES_MS = 10_000;
/** The pause before a worker tries again after its pull failed (consumer gone, JetStream unavailable). */
const FETCH_RETRY_PAUSE_MS = 1_000;

const logger = new Logger('NatsWorkQueue');
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export interface NatsWorkQueueOptions {
  /** Prefix of the JetStream stream's name (the bucket prefix), so runs sharing a server stay apart. */
  streamPrefix?: string;
  /** Subject naming of the platform: jobs are published on `<prefix>.work.<queue>`. */
  naming?: SubjectNaming;
}

/**
 * Distributed work queue: one JetStream stream (`<prefix>MCP_WORK`, work-queue retention so an acknowledged job is
 * deleted, file storage, 2-minute duplicate window on the `Nats-Msg-Id` header carrying the job id) with one subject
 * per queue, `work.<queue>`, and per queue one durable pull consumer `work-<queue>` shared by every process, so each
 * job is handed to one of them. The consumer's `ack_wait` is the workers' `ackWaitMs` and its `max_deliver`
 * `maxAttempts + 1` (the give-up delivery).
 */
export class NatsWorkQueue extends WorkQueue {
  private readonly streamName: string;
  private readonly naming: SubjectNaming;
  /** The JetStream stream, created or updated at first use. */
  private readonly jetStream: JetStreamStream;

  constructor(
    private readonly connection: NatsConnection,
    options: NatsWorkQueueOptions = {},
  ) {
    super();
    // Stream names cannot hold `.`, `*`, `>`, whitespace or path separators.
    this.streamName = `${options.streamPrefix ?? ''}MCP_WORK`.replace(/[^A-Za-z0-9_-]/g, '_');
    this.naming = options.naming ?? new SubjectNaming();
    this.jetStream = new JetStreamStream(connection, {
      name: this.streamName,
      subjects: [this.subject('>')],
      storage: StorageType.File,
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(WORK_QUEUE_DEDUP_WINDOW_MS),
    });
  }

  async enqueue(queue: string, job: { id: string; data: string }): Promise<void> {
    assertQueueName(queue);
    assertJobId(job.id);
    // Without the JetStream stream the publish would find no responder.
    await this.jetStream.ensure();
    // Resolves on JetStream's ack, i.e. once stored (or recognised as a duplicate, which is ignored).
    await this.connection.jetstream().publish(this.subject(queue), encoder.encode(job.data), { msgID: job.id });
  }

  work(queue: string, handler: (job: Job) => Promise<JobOutcome>, options: WorkerOptions): Worker {
    assertQueueName(queue);
    const resolved = resolveWorkerOptions(options);
    return new NatsWorker(queue, handler, resolved, this.connection, () => this.consumer(queue, resolved));
  }

  private subject(queue: string): string {
    return this.naming.subject(`work.${queue}`);
  }

  /**
   * Creates the queue's durable consumer, or brings it to these options: a process restarted with another `ackWaitMs`
   * or `maxAttempts` must not keep the old ones.
   */
  private async consumer(queue: string, options: Required<WorkerOptions>): Promise<Consumer> {
    const jsm = await this.jetStream.ensure();
    const durable = `work-${queue}`;
    const config: Partial<ConsumerConfig> = {
      durable_name: durable,
      // One filter subject per consumer: NATS 2.9 has no `filter_subjects`.
      filter_subject: this.subject(queue),
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(options.ackWaitMs),
      max_deliver: options.maxAttempts + 1,
    };
    try {
      // NATS 2.9 updates an existing durable consumer here; 2.10+ refuses it with CONSUMER_EXISTS.
      await jsm.consumers.add(this.streamName, config);
    } catch (error) {
      if (apiErrorCode(error) !== CONSUMER_EXISTS) throw error;
      await jsm.consumers.update(this.streamName, durable, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
    }
    return this.connection.jetstream().consumers.get(this.streamName, durable);
  }
}

/**
 * One `work()` call: pulls at most as many jobs as it has free slots (so never more than `concurrency` unacknowledged
 * in this process), runs the handler for each while confirming the claim every `ackWaitMs / 3`, then acknowledges or
 * delays the job.
 */
class NatsWorker implements Worker {
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  /** The pull in progress, closed by stop(). */
  private batch: ConsumerMessages | undefined;
  /** Ends the loop's current wait (for a free slot, or before retrying a failed pull). */
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly queue: string,
    private readonly handler: (job: Job) => Promise<JobOutcome>,
    private readonly options: Required<WorkerOptions>,
    private readonly connection: NatsConnection,
    private readonly openConsumer: () => Promise<Consumer>,
  ) {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    // Closing the pull's subscription makes JetStream drop the pull request (no interest), so no job goes to it.
    await this.batch?.close().catch(() => undefined);
    await settleWithin(
      this.loop.then(() => Promise.allSettled([...this.running])),
      WORKER_STOP_TIMEOUT_MS,
    );
  }

  private async run(): Promise<void> {
    let consumer: Consumer | undefined;
    while (!this.stopped && !this.connection.isClosed()) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) {
        await this.pause();
        continue;
      }
      try {
        consumer ??= await this.openConsumer();
        if (this.stopped) break;
        const batch = await consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        this.batch = batch;
        // stop() may have come while the pull was being set up, before there was a batch to close.
        if (this.stopped) await batch.close();
        for await (const message of batch) this.take(message);
        const outcome = await batch.closed();
        if (outcome instanceof Error) throw outcome;
      } catch (error) {
        if (this.stopped || this.connection.isClosed()) break;
        logger.warn(`work queue ${this.queue}: pulling jobs failed, retrying: ${error instanceof Error ? error.message : String(error)}`);
        // The consumer may have been deleted: create it again on the next pull.
        consumer = undefined;
        await this.pause(FETCH_RETRY_PAUSE_MS);
      } finally {
        this.batch = undefined;
      }
    }
  }

  private take(message: JsMsg): void {
    if (this.stopped) {
      // Pulled while stopping: straight back to the queue for another worker.
      settle(() => message.nak());
      return;
    }
    const job: Job = { id: message.headers?.get(MSG_ID_HEADER) ?? '', data: decoder.decode(message.data), attempt: message.info.deliveryCount };
    const heartbeat = setInterval(() => settle(() => message.working()), Math.floor(this.options.ackWaitMs / 3));
    const run = runHandler(this.queue, this.handler, job, logger)
      .then((outcome) => {
        // The give-up delivery is acknowledged whatever the handler answered: JetStream would not deliver it again
        // (max_deliver), but only an ack removes it from the work-queue stream.
        if (outcome === 'done' || job.attempt > this.options.maxAttempts) settle(() => message.ack());
        else settle(() => message.nak(outcome));
      })
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(run);
        this.wake?.();
      });
    this.running.add(run);
  }

  /** Waits until a handler settles, stop() is called, or `ms` passed. */
  private pause(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}

/**
 * Sends an ack, nak or progress signal. They are fire-and-forget; one that cannot be sent (connection closed) only
 * means JetStream redelivers the job after `ack_wait`, which is the at-least-once contract anyway.
 */
function settle(signal: () => void): void {
  try {
    signal();
  } catch (error) {
    logger.debug(`work queue: could not signal JetStream: ${error instanceof Error ? error.message : String(error)}`);
  }
}
