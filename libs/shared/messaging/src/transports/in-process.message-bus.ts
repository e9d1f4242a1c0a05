import { randomUUID } from 'node:crypto';
import { type EventContract, type EventPayload, routedSubject, type RpcContract, type RpcRequest, type RpcResponse } from '@mcp-platform/protocol-contracts';
import { contextFromHeaders, contextToHeaders } from '../bus/call-context';
import { type BusSubscription, type EmitOptions, type EventListener, MessageBus, type RequestOptions, type SubscribeOptions } from '../bus/message-bus';
import { type EventPacket, parseOutgoing, type RequestPacket, unwrapReply } from '../bus/wire-packet';
import { abortable } from './abortable';
import type { InProcessHub } from './in-process.hub';

/** The typed client over the in-process hub (embedded mode). */
export class InProcessMessageBus extends MessageBus {
  constructor(private readonly hub: InProcessHub) {
    super();
  }

  async request<C extends RpcContract>(contract: C, payload: RpcRequest<C>, options: RequestOptions = {}): Promise<RpcResponse<C>> {
    const data = parseOutgoing(contract, payload);
    const timeoutMs = options.timeoutMs ?? contract.timeoutMs;
    const headers = contextToHeaders({ deadline: Date.now() + timeoutMs, ...options.context });
    const packet: RequestPacket = { pattern: contract.subject, data, id: randomUUID() };
    const reply = await abortable(this.hub.request(contract.subject, JSON.stringify(packet), headers, timeoutMs), options.signal);
    return unwrapReply(contract, reply) as RpcResponse<C>;
  }

  emit<C extends EventContract>(contract: C, payload: EventPayload<C>, options: EmitOptions = {}): void {
    const data = contract.payload.parse(payload);
    const subject = contract.delivery === 'routed' ? routedSubject(contract, options.route ?? '') : contract.subject;
    const packet: EventPacket = { pattern: subject, data };
    this.hub.publish(subject, JSON.stringify(packet), contextToHeaders(options.context));
  }

  subscribe<C extends EventContract>(contract: C, listener: EventListener<C>, options: SubscribeOptions = {}): BusSubscription {
    const subject = contract.delivery === 'routed' ? routedSubject(contract, options.route ?? '') : contract.subject;
    return this.hub.subscribe(subject, (message) => {
      const packet = JSON.parse(message.data) as EventPacket;
      const parsed = contract.payload.safeParse(packet.data);
      if (parsed.success) listener(parsed.data as EventPayload<C>, contextFromHeaders(message.headers));
    });
  }

  flush(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }
}
