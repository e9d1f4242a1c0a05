import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { connect, type NatsConnection } from 'nats';
import { MessageBus } from './bus/message-bus';
import { EventLog } from './event-log/event-log';
import { MemoryEventLog } from './event-log/memory.event-log';
import { NatsEventLog } from './event-log/nats.event-log';
import { KeyValueFactory } from './key-value/key-value.store';
import { MemoryKeyValueFactory } from './key-value/memory.key-value';
import { NatsKeyValueFactory } from './key-value/nats.key-value';
import { InProcessHub } from './transports/in-process.hub';
import { InProcessMessageBus } from './transports/in-process.message-bus';
import { InProcessServer } from './transports/in-process.server';
import { NatsMessageBus } from './transports/nats.message-bus';
import { NatsServer } from './transports/nats.server';
import { SubjectNaming } from './transports/subject-naming';
import { MemoryWorkQueue } from './work-queue/memory.work-queue';
import { NatsWorkQueue } from './work-queue/nats.work-queue';
import { WorkQueue } from './work-queue/work-queue';

/** Which bus an app runs on: real NATS (distributed mode) or the in-process hub (embedded mode). */
export type MessagingOptions =
  | {
      transport: 'nats';
      /** Comma-separated NATS server URLs. */
      servers: string;
      /** Connection name, shown by the NATS server (the app's name). */
      name: string;
      /** Prefix for JetStream bucket names, so test runs can be isolated. */
      bucketPrefix?: string;
      /**
       * Prefix of every subject, queue group and reply inbox (`<prefix>.<subject>`), so platforms sharing
       * one NATS server (environments, test runs) never answer each other. Empty or absent: none.
       */
      subjectPrefix?: string;
      /** How long the event log keeps events (default 15 minutes). */
      eventLogMaxAgeMs?: number;
    }
  | { transport: 'in-process'; hub: InProcessHub; keyValue: MemoryKeyValueFactory; eventLog: MemoryEventLog; workQueue: MemoryWorkQueue };

export const NATS_CONNECTION = 'NATS_CONNECTION';
const MESSAGING_OPTIONS = 'MESSAGING_OPTIONS';

/** The distributed mode's options for one app, from its validated environment (the `natsEnv` fragment). */
export function natsMessaging(
  name: string,
  env: { NATS_URL: string; NATS_BUCKET_PREFIX?: string; NATS_SUBJECT_PREFIX?: string; EVENT_LOG_RETENTION_SECONDS?: number },
): MessagingOptions {
  return {
    transport: 'nats',
    servers: env.NATS_URL,
    name,
    ...(env.NATS_BUCKET_PREFIX ? { bucketPrefix: env.NATS_BUCKET_PREFIX } : {}),
    ...(env.NATS_SUBJECT_PREFIX ? { subjectPrefix: env.NATS_SUBJECT_PREFIX } : {}),
    ...(env.EVENT_LOG_RETENTION_SECONDS ? { eventLogMaxAgeMs: env.EVENT_LOG_RETENTION_SECONDS * 1_000 } : {}),
  };
}

/** Creates what the embedded mode shares between its apps: one hub, one set of buckets, one event log and one work queue. */
export function inProcessMessaging(): Extract<MessagingOptions, { transport: 'in-process' }> {
  return {
    transport: 'in-process',
    hub: new InProcessHub(),
    keyValue: new MemoryKeyValueFactory(),
    eventLog: new MemoryEventLog(),
    workQueue: new MemoryWorkQueue(),
  };
}

/** The microservice (server) side of the same choice, for `app.connectMicroservice()`. */
export function microserviceOptions(options: MessagingOptions): MicroserviceOptions {
  if (options.transport === 'in-process') return { strategy: new InProcessServer(options.hub) };
  return {
    strategy: new NatsServer(
      { servers: options.servers.split(','), name: `${options.name}-server`, gracefulShutdown: true, gracePeriod: 2_000 },
      new SubjectNaming(options.subjectPrefix),
    ),
  };
}

/**
 * The start of a drain (`runService`): on NATS, the app's request handlers stop taking requests, which
 * go to the app's other replicas; its event handlers and its connection stay until the app closes. The
 * in-process server keeps serving: in one process the other apps' work in flight may still ask it,
 * and the HTTP edge already refuses new work.
 */
export async function stopTakingRequests(microservice: MicroserviceOptions): Promise<void> {
  const strategy = (microservice as { strategy?: unknown }).strategy;
  if (strategy instanceof NatsServer) await strategy.stopTakingRequests();
}

@Injectable()
class NatsConnectionCloser implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection | null) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.connection && !this.connection.isClosed()) await this.connection.drain();
  }
}

/**
 * Provides `MessageBus` (the typed client), `KeyValueFactory`, `EventLog` and `WorkQueue` for the configured transport.
 * Handlers are served by the microservice created from `microserviceOptions()` with the same options.
 */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: MessagingOptions): DynamicModule {
    // Built here, not in a factory, so a bad prefix fails at module definition with its own message.
    const naming = options.transport === 'nats' ? new SubjectNaming(options.subjectPrefix) : undefined;
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: options },
        {
          provide: NATS_CONNECTION,
          useFactory: async (): Promise<NatsConnection | null> =>
            options.transport === 'nats'
              ? connect({
                  servers: options.servers.split(','),
                  name: `${options.name}-client`,
                  maxReconnectAttempts: -1,
                  // Async stack traces cost two Error objects per request on the hot path.
                  noAsyncTraces: true,
                  // Replies (ours and JetStream's) under the prefix too, so `<prefix>.>` covers everything.
                  ...(naming?.prefix ? { inboxPrefix: naming.inboxPrefix } : {}),
                })
              : null,
        },
        {
          provide: MessageBus,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection | null): MessageBus =>
            options.transport === 'nats' ? new NatsMessageBus(connection as NatsConnection, naming) : new InProcessMessageBus(options.hub),
        },
        {
          provide: KeyValueFactory,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection | null): KeyValueFactory =>
            options.transport === 'nats' ? new NatsKeyValueFactory(connection as NatsConnection, options.bucketPrefix) : options.keyValue,
        },
        {
          provide: EventLog,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection | null): EventLog =>
            options.transport === 'nats'
              ? new NatsEventLog(connection as NatsConnection, {
                  ...(options.bucketPrefix ? { streamPrefix: options.bucketPrefix } : {}),
                  ...(naming ? { naming } : {}),
                  ...(options.eventLogMaxAgeMs ? { maxAgeMs: options.eventLogMaxAgeMs } : {}),
                })
              : options.eventLog,
        },
        {
          provide: WorkQueue,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection | null): WorkQueue =>
            options.transport === 'nats'
              ? new NatsWorkQueue(connection as NatsConnection, {
                  ...(options.bucketPrefix ? { streamPrefix: options.bucketPrefix } : {}),
                  ...(naming ? { naming } : {}),
                })
              : options.workQueue,
        },
        NatsConnectionCloser,
      ],
      exports: [MessageBus, KeyValueFactory, EventLog, WorkQueue, NATS_CONNECTION],
    };
  }
}
