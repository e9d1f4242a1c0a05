/** The typed message bus: contracts-driven client, handler decorators, NATS and in-process transports, KV buckets, event log, work queue. */
export { type CallContext, contextFromHeaders, contextToHeaders, type HeaderReader } from './bus/call-context';
export { EventHandler, queueGroupOf, RpcHandler, toWireError } from './bus/handler.decorators';
export { type CursorFields, decodeListCursor, encodeListCursor } from './bus/list-cursor';
export { type BusSubscription, type EmitOptions, type EventListener, MessageBus, type RequestOptions, type SubscribeOptions } from './bus/message-bus';
export { isRpcError, RpcError, WireErrorCode } from './bus/rpc-error';
export { EventLog, type EventLogOptions, type LoggedEvent } from './event-log/event-log';
export { MemoryEventLog, type MemoryEventLogOptions } from './event-log/memory.event-log';
export { type KeyValueBucketOptions, type KeyValueChange, type KeyValueEntry, KeyValueFactory, KeyValueStore } from './key-value/key-value.store';
export { MemoryKeyValueFactory } from './key-value/memory.key-value';
export {
  inProcessMessaging,
  MessagingModule,
  type MessagingOptions,
  microserviceOptions,
  NATS_CONNECTION,
  natsMessaging,
  stopTakingRequests,
} from './messaging.module';
export { InProcessHub } from './transports/in-process.hub';
export { InProcessContext, InProcessServer } from './transports/in-process.server';
export { SUBJECT_PREFIX_PATTERN, SubjectNaming } from './transports/subject-naming';
export { MemoryWorkQueue } from './work-queue/memory.work-queue';
export { NatsWorkQueue, type NatsWorkQueueOptions } from './work-queue/nats.work-queue';
export { type Job, type JobOutcome, type Worker, type WorkerOptions, WorkQueue } from './work-queue/work-queue';
