import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, JSONCodec, type MsgHdrs, type NatsConnection, type NatsError } from 'nats';
import {
  routedSubject,
  WireErrorCode,
  type EventContract,
  type EventPayload,
  type RpcContract,
  type RpcRequest,
  type RpcResponse,
} from '@mcp-platform/protocol-contracts';
import { contextFromHeaders, contextToHeaders, type CallContext } from '../bus/call-context';
import {
  MessageBus,
  type BusSubscription,
  type EmitOptions,
  type EventListener,
  type RequestOptions,
  type SubscribeOptions,
} from '../bus/message-bus';
import { RpcError } from '../bus/rpc-error';
import { parseOutgoing, unwrapReply, type EventPacket, type ReplyPacket, type RequestPacket } from '../bus/wire-packet';
import { abortable } from './abortable';

const codec = JSONCodec<unknown>();

/**
 * The typed client over core NATS. Requests use the connection's multiplexed reply inbox (one
 * subscription for all replies), and speak the packet format of Nest's NATS server.
 */
export class NatsMessageBus extends MessageBus {
  constructor(private readonly connection: NatsConnection) {
    super();
  }

  async request<C extends RpcContract>(contract: C, payload: RpcRequest<C>, options: RequestOptions = {}): Promise<RpcResponse<C>> {
    const data = parseOutgoing(contract, payload);
    const timeoutMs = options.timeoutMs ?? contract.timeoutMs;
    const packet: RequestPacket = { pattern: contract.subject, data, id: randomUUID() };
    const headers = toNatsHeaders({ deadline: Date.now() + timeoutMs, ...options.context });
    let reply: ReplyPacket;
    try {
      const message = await abortable(
        this.connection.request(contract.subject, codec.encode(packet), { timeout: timeoutMs, headers }),
        options.signal,
      );
      reply = codec.decode(message.data) as ReplyPacket;
    } catch (error) {
      throw toRpcError(contract.subject, error, timeoutMs);
    }
    return unwrapReply(contract, reply) as RpcResponse<C>;
  }

  emit<C extends EventContract>(contract: C, payload: EventPayload<C>, options: EmitOptions = {}): void {
    const data = contract.payload.parse(payload);
    const subject = contract.delivery === 'routed' ? routedSubject(contract, options.route ?? '') : contract.subject;
    const packet: EventPacket = { pattern: subject, data };
    this.connection.publish(subject, codec.encode(packet), { headers: toNatsHeaders(options.context) });
  }

  subscribe<C extends EventContract>(contract: C, listener: EventListener<C>, options: SubscribeOptions = {}): BusSubscription {
    const subject = contract.delivery === 'routed' ? routedSubject(contract, options.route ?? '') : contract.subject;
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
        if (parsed.success) listener(parsed.data as EventPayload<C>, contextFromHeaders(message.headers ? { get: (name) => message.headers?.get(name) || undefined } : undefined));
      },
    });
    return { unsubscribe: () => subscription.unsubscribe() };
  }

  flush(): Promise<void> {
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

function toRpcError(subject: string, error: unknown, timeoutMs: number): RpcError {
  if (error instanceof RpcError) return error;
  const code = (error as NatsError)?.code;
  if (code === '503') return new RpcError(WireErrorCode.Unavailable, `no service answers ${subject}`);
  if (code === 'TIMEOUT') return new RpcError(WireErrorCode.Timeout, `${subject}: no reply within ${timeoutMs} ms`);
  return new RpcError(WireErrorCode.Unavailable, `${subject}: ${(error as Error)?.message ?? String(error)}`);
}
