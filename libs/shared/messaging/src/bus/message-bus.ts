import type { EventContract, EventPayload, RpcContract, RpcRequest, RpcResponse } from '@mcp-platform/protocol-contracts';
import type { CallContext } from './call-context';

export interface RequestOptions {
  /** Overrides the contract's default deadline for this call. */
  timeoutMs?: number;
  context?: CallContext;
  /** Aborting stops waiting for the reply (the request itself is already sent). */
  signal?: AbortSignal;
}

export interface EmitOptions {
  /** For `routed` events: the receiver's route token. */
  route?: string;
  context?: CallContext;
}

export interface SubscribeOptions {
  /** For `routed` events: the route this receiver listens on. */
  route?: string;
}

export interface BusSubscription {
  unsubscribe(): void;
}

export type EventListener<C extends EventContract> = (payload: EventPayload<C>, context: CallContext) => void;

/**
 * The typed client over the bus. `request` validates the payload before sending and the reply after
 * receiving, has a deadline, and turns error envelopes into `RpcError`s. Inject it as `MessageBus`.
 */
export abstract class MessageBus {
  abstract request<C extends RpcContract>(contract: C, payload: RpcRequest<C>, options?: RequestOptions): Promise<RpcResponse<C>>;
  abstract emit<C extends EventContract>(contract: C, payload: EventPayload<C>, options?: EmitOptions): void;
  /**
   * Listens to an event outside Nest's handler discovery: routed events (one receiver, a route it
   * chooses at run time) or listeners that come and go with a connection.
   */
  abstract subscribe<C extends EventContract>(contract: C, listener: EventListener<C>, options?: SubscribeOptions): BusSubscription;
  /** Resolves when everything emitted so far has left the process. */
  abstract flush(): Promise<void>;
}
