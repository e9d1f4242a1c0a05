import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { createInbox, headers as natsHeaders, JSONCodec, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from 'nats';
import {
  type EventContract,
  type EventPayload,
  routedSubject,
  type RpcContract,
  type RpcRequest,
  type RpcResponse,
  WireErrorCode,
} from '@mcp-platform/protocol-contracts';
import { type CallContext, contextFromHeaders, contextToHeaders } from '../bus/call-context';
import { type BusSubscription, type EmitOptions, type EventListener, MessageBus, type RequestOptions, type SubscribeOptions } from '../bus/message-bus';
import { RpcError } from '../bus/rpc-error';
import { type EventPacket, parseOutgoing, type ReplyPacket, type RequestPacket, unwrapReply } from '../bus/wire-packet';
import { Outbox } from './outbox';
import { SubjectNaming } from './subject-naming';

const codec = JSONCodec<unknown>();
const logger = new Logger('NatsMessageBus');

interface PendingReply {
  subject: string;
  resolve(reply: ReplyPacket): void;
  reject(error: RpcError): void;
  timer: NodeJS.Timeout;
}

/**
 * The typed client over core NATS, speaking the packet format of Nest's NATS server. Requests share
 * one reply subscription (`<inbox>.*`, one token per request) with a plain map of pending replies:
 * no per-request subscription, and none of the per-request `Error` objects the client library's
 * `request()` builds (they cost a few percent of the broker's CPU on the hot path). Every subject and
 * the reply inbox carry the platform's subject prefix (`SubjectNaming`); the packets keep the
 * contracts' own subjects.
 */
export class NatsMessageBus extends MessageBus {
  private readonly inbox: string;
  private readonly pending = new Map<string, PendingReply>();
  private replies: Subscription | undefined;
  private nextToken = 0;
  // An event published while the connection closes is lost, as it would be on the wire.
  private readonly outbox = new Outbox((error) => logger.warn(`a message could not be published: ${(error as Error)?.message ?? String(error)}`));

  constructor(
    private readonly connection: NatsConnection,
    private readonly naming: SubjectNaming = new SubjectNaming(),
  ) {
    super();
    this.inbox = `${createInbox(naming.inboxPrefix)}.`;
  }

  async request<C extends RpcContract>(contract: C, payload: RpcRequest<C>, options: RequestOptions = {}): Promise<RpcResponse<C>> {
    const data = parseOutgoing(contract, payload);
    const timeoutMs = options.timeoutMs ?? contract.timeoutMs;
    const packet: RequestPacket = { pattern: contract.subject, data, id: randomUUID() };
    const headers = toNatsHeaders({ deadline: Date.now() + timeoutMs, ...options.context });
    const reply = await this.exchange(this.naming.subjectOf(contract), codec.encode(packet), headers, timeoutMs, options.signal);
    return unwrapReply(contract, reply) as RpcResponse<C>;
  }

  private exchange(subject: string, body: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<ReplyPacket> {
    if (signal?.aborted) return Promise.reject(new RpcError(WireErrorCode.Cancelled, 'cancelled by the caller'));
    this.replies ??= this.connection.subscribe(`${this.inbox}*`, { callback: (_error, message) => this.settle(message) });
    const token = (this.nextToken++).toString(36);
    return new Promise<ReplyPacket>((resolve, reject) => {
      const onAbort = (): void => finish(new RpcError(WireErrorCode.Cancelled, 'cancelled by the caller'));
      const finish = (error?: RpcError, reply?: ReplyPacket): void => {
        const entry = this.pending.get(token);
        if (!entry) return;
        this.pending.delete(token);
        clearTimeout(entry.timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(reply as ReplyPacket);
      };
      const timer = setTimeout(() => finish(new RpcError(WireErrorCode.Timeout, `${subject}: no reply within ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(token, { subject, resolve: (reply) => finish(undefined, reply), reject: (error) => finish(error), timer });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.outbox.push(() => {
        try {
          this.connection.publish(subject, body, { reply: `${this.inbox}${token}`, ...(headers ? { headers } : {}) });
        } catch (error) {
          finish(new RpcError(WireErrorCode.Unavailable, `${subject}: ${(error as Error)?.message ?? String(error)}`));
        }
      });
    });
  }

  /** One reply arrived: hand it to its request. NATS answers 503 itself when nothing subscribes. */
  private settle(message: Msg): void {
    const entry = this.pending.get(message.subject.slice(this.inbox.length));
    if (!entry) return;
    if (message.headers?.code === 503) {
      entry.reject(new RpcError(WireErrorCode.Unavailable, `no service answers ${entry.subject}`));
      return;
    }
    try {
      entry.resolve(codec.decode(message.data) as ReplyPacket);
    } catch {
      entry.reject(new RpcError(WireErrorCode.Internal, 'a reply that is not JSON'));
    }
  }

  emit<C extends EventContract>(contract: C, payload: EventPayload<C>, options: EmitOptions = {}): void {
    const data = contract.payload.parse(payload);
    const pattern = contract.delivery === 'routed' ? routedSubject(contract, options.route ?? '') : contract.subject;
    const subject = contract.delivery === 'routed' ? this.naming.subject(pattern) : this.naming.subjectOf(contract);
    const packet: EventPacket = { pattern, data };
    const body = codec.encode(packet);
    const headers = toNatsHeaders(options.context);
    // Through the same outbox as requests, so a cancellation never overtakes the call it cancels.
    this.outbox.push(() => this.connection.publish(subject, body, headers ? { headers } : {}));
  }

  subscribe<C extends EventContract>(contract: C, listener: EventListener<C>, options: SubscribeOptions = {}): BusSubscription {
    const subject = contract.delivery === 'routed' ? this.naming.subject(routedSubject(contract, options.route ?? '')) : this.naming.subjectOf(contract);
    const subscription = this.connection.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        let packet: EventPacket;
        try {
          packet = codec.decode(message.data) as EventPacket;
        } catch {
          return;
        }
        const parsed = contract.payload.safeParse(packet?.data);
        if (parsed.success)
          listener(
            parsed.data as EventPayload<C>,
            contextFromHeaders(message.headers ? { get: (name) => message.headers?.get(name) || undefined } : undefined),
          );
      },
    });
    return { unsubscribe: () => subscription.unsubscribe() };
  }

  flush(): Promise<void> {
    this.outbox.drain();
    return this.connection.flush();
  }
}

function toNatsHeaders(context: CallContext | undefined): MsgHdrs | undefined {
  const values = contextToHeaders(context);
  const names = Object.keys(values);
  if (!names.length) return undefined;
  const result = natsHeaders();
  for (const name of names) result.set(name, values[name] as string);
  return result;
}
