/** The typed message bus: contracts-driven client, handler decorators, NATS and in-process transports, KV buckets, event log, work queue. */
export { MessageBus, type BusSubscription, type EmitOptions, type EventListener, type RequestOptions, type SubscribeOptions } from './bus/message-bus';
export { RpcHandler, EventHandler, queueGroupOf, toWireError } from './bus/handler.decorators';
export { RpcError, isRpcError, WireErrorCode } from './bus/rpc-error';
export { decodeListCursor, encodeListCursor, type CursorFields } from './bus/list-cursor';
export { contextFromHeaders, contextToHeaders, type CallContext, type HeaderReader } from './bus/call-context';
export { KeyValueFactory, KeyValueStore, type KeyValueChange, type KeyValueEntry, type KeyValueBucketOptions } from './key-value/key-value.store';
export { MemoryKeyValueFactory } from './key-value/memory.key-value';
export { EventLog, type EventLogOptions, type LoggedEvent } from './event-log/event-log';
export { MemoryEventLog, type MemoryEventLogOptions } from './event-log/memory.event-log';
export { WorkQueue, type Job, type JobOutcome, type Worker, type WorkerOptions } from './work-queue/work-queue';
export { MemoryWorkQueue } from './work-queue/memory.work-queue';
export { NatsWorkQueue, type NatsWorkQueueOptions } from './work-queue/nats.work-queue';
export { InProcessHub } from './transports/in-process.hub';
export { InProcessServer, InProcessContext } from './transports/in-process.server';
export { SubjectNaming, SUBJECT_PREFIX_PATTERN } from './transports/subject-naming';
export { MessagingModule, microserviceOptions, stopTakingRequests, inProcessMessaging, natsMessaging, NATS_CONNECTION, type MessagingOptions } from './messaging.module';
