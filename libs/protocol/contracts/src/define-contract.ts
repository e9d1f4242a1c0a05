import type { z } from 'zod';

/**
 * Subject grammar (DESIGN.md §4): `<app>.v<major>.<entity>.<verb>` for requests and
 * `<app>.v<major>.<entity>.<past-participle>` for events; lowercase ASCII, `-` inside tokens.
 */
export const SUBJECT_PATTERN = /^[a-z][a-z0-9-]*\.v[1-9][0-9]*\.[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/;

/** A request/reply message: one subject, the request it takes and the response it gives. */
export interface RpcContract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly kind: 'rpc';
  /** NATS subject; replicas of the owning app answer it in a queue group named after the app. */
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
  /** Default deadline for a call, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * How an event reaches its subscribers:
 * - `all`: every replica of every subscribing app receives it (catalog changes, cancellations);
 * - `one`: one replica per subscribing app (queue group);
 * - `routed`: published to `<subject>.<route>`, where the route names one receiver (a broker
 *   replica's stream, for example); only that receiver subscribes to it.
 */
export type EventDelivery = 'all' | 'one' | 'routed';

/** A fire-and-forget message: one subject and its payload. */
export interface EventContract<P extends z.ZodType = z.ZodType> {
  readonly kind: 'event';
  readonly subject: string;
  readonly payload: P;
  readonly delivery: EventDelivery;
}

export type RpcRequest<C extends RpcContract> = z.input<C['request']>;
export type RpcRequestParsed<C extends RpcContract> = z.output<C['request']>;
export type RpcResponse<C extends RpcContract> = z.output<C['response']>;
export type EventPayload<C extends EventContract> = z.output<C['payload']>;

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/** Binds a subject to its request and response schemas; sender and receiver import the same object. */
export function defineRpc<Req extends z.ZodType, Res extends z.ZodType>(definition: {
  subject: string;
  request: Req;
  response: Res;
  timeoutMs?: number;
}): RpcContract<Req, Res> {
  return Object.freeze({
    kind: 'rpc' as const,
    subject: definition.subject,
    request: definition.request,
    response: definition.response,
    timeoutMs: definition.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
  });
}

/** Binds a subject to its payload schema and its delivery mode. */
export function defineEvent<P extends z.ZodType>(definition: { subject: string; payload: P; delivery: EventDelivery }): EventContract<P> {
  return Object.freeze({ kind: 'event' as const, ...definition });
}

/** The subject a routed event is published on for one receiver. */
export function routedSubject(contract: EventContract, route: string): string {
  if (contract.delivery !== 'routed') throw new Error(`${contract.subject} is not a routed event`);
  if (!/^[A-Za-z0-9_-]+$/.test(route)) throw new Error(`invalid route token: ${route}`);
  return `${contract.subject}.${route}`;
}
