import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  type EventContract,
  type EventPayload,
  type ReplyEnvelope,
  type RpcContract,
  type RpcRequestParsed,
  type RpcResponse,
  type WireError,
  WireErrorCode,
} from '@mcp-platform/protocol-contracts';
import { type CallContext, contextFromHeaders, type HeaderReader } from './call-context';
import { RpcError } from './rpc-error';

const logger = new Logger('MessageHandler');

type RpcMethod<C extends RpcContract> = (request: RpcRequestParsed<C>, context: CallContext) => Promise<RpcResponse<C>> | RpcResponse<C>;
type EventMethod<C extends EventContract> = (payload: EventPayload<C>, context: CallContext) => unknown;

/** The queue group of a request subject: the app named first in it, so that app's replicas share the load. */
export const queueGroupOf = (subject: string): string => subject.slice(0, subject.indexOf('.'));

function headersOf(transportContext: unknown): HeaderReader | undefined {
  const getHeaders = (transportContext as { getHeaders?: () => unknown } | undefined)?.getHeaders;
  const headers = typeof getHeaders === 'function' ? getHeaders.call(transportContext) : undefined;
  if (!headers || typeof (headers as HeaderReader).get !== 'function') return undefined;
  return { get: (name) => (headers as HeaderReader).get(name) || undefined };
}

/**
 * Serves an RPC contract: subscribes in the owning app's queue group, validates the request,
 * hands the method `(request, context)`, and answers with a reply envelope. A thrown `RpcError`
 * becomes its error envelope; anything else is logged with an id and answered as `INTERNAL`.
 */
export function RpcHandler<C extends RpcContract>(contract: C) {
  return <M extends RpcMethod<C>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    const method = descriptor.value;
    if (!method) throw new Error(`@RpcHandler on ${String(key)} needs a method`);
    const wrapped = async function (this: unknown, data: unknown, transportContext: unknown): Promise<ReplyEnvelope<unknown>> {
      const context = contextFromHeaders(headersOf(transportContext));
      const parsed = contract.request.safeParse(data);
      if (!parsed.success) {
        logger.warn(`${contract.subject}: invalid request: ${parsed.error.message}`);
        return { ok: false, error: { code: WireErrorCode.InvalidRequest, message: `invalid request: ${parsed.error.message}` } };
      }
      if (context.deadline !== undefined && Date.now() > context.deadline) {
        return { ok: false, error: { code: WireErrorCode.Timeout, message: 'deadline passed before the request was served' } };
      }
      try {
        return { ok: true, value: await method.call(this, parsed.data as RpcRequestParsed<C>, context) };
      } catch (error) {
        return { ok: false, error: toWireError(contract.subject, error) };
      }
    };
    Object.defineProperty(wrapped, 'name', { value: method.name });
    descriptor.value = wrapped as unknown as M;
    bindArguments(target, key);
    MessagePattern(contract.subject, { queue: queueGroupOf(contract.subject) })(target, key, descriptor);
  };
}

/**
 * Handles an event contract. `delivery: 'all'` events reach every replica; `'one'` events reach one
 * replica of the subscribing app, named by `group`. Routed events are subscribed with `MessageBus.subscribe`.
 */
export function EventHandler<C extends EventContract>(contract: C, options: { group?: string } = {}) {
  if (contract.delivery === 'routed') throw new Error(`${contract.subject} is routed: use MessageBus.subscribe`);
  if (contract.delivery === 'one' && !options.group) throw new Error(`${contract.subject} is delivered to one replica: name the group`);
  return <M extends EventMethod<C>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    const method = descriptor.value;
    if (!method) throw new Error(`@EventHandler on ${String(key)} needs a method`);
    const wrapped = async function (this: unknown, data: unknown, transportContext: unknown): Promise<void> {
      const parsed = contract.payload.safeParse(data);
      if (!parsed.success) {
        logger.warn(`${contract.subject}: dropped an invalid event: ${parsed.error.message}`);
        return;
      }
      try {
        await method.call(this, parsed.data as EventPayload<C>, contextFromHeaders(headersOf(transportContext)));
      } catch (error) {
        logger.error(`${contract.subject}: event handler failed: ${(error as Error).stack ?? String(error)}`);
      }
    };
    Object.defineProperty(wrapped, 'name', { value: method.name });
    descriptor.value = wrapped as unknown as M;
    bindArguments(target, key);
    EventPattern(contract.subject, options.group ? { queue: options.group } : {})(target, key, descriptor);
  };
}

/** Nest passes only the payload unless told otherwise: ask for the payload and the transport context. */
function bindArguments(target: object, key: string | symbol): void {
  Payload()(target, key, 0);
  Ctx()(target, key, 1);
}

/**
 * What a handler's failure becomes on the wire: an `RpcError` as it is, anything else `INTERNAL` with an
 * error id that is logged with the stack here (the caller sees only the id).
 */
export function toWireError(subject: string, error: unknown): WireError {
  if (error instanceof RpcError) return error.toWire();
  const errorId = randomUUID();
  logger.error(`${subject}: unexpected failure (error id ${errorId}): ${(error as Error)?.stack ?? String(error)}`);
  return { code: WireErrorCode.Internal, message: `internal error (id ${errorId})`, errorId };
}
