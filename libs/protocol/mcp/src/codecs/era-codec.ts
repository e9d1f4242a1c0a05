import type { Implementation, LoggingLevel } from '../core-types';
import type { JsonRpcErrorObject } from '../json-rpc-errors';
import { isPlainObject } from '../plain-object';
import type { CacheableResultFields } from '../results';
import type { ProtocolEra } from '../versions';

/**
 * One codec per protocol era (the TypeScript SDK v2's wire codec is the model): which methods the era
 * has, how an era-neutral result, task or error is worded on its wire, and, the other way round, how a
 * request is worded for a peer of that era and how its answer reads. The platform's handlers produce
 * neutral values (no `resultType`, no caching fields, no `serverInfo`, one task shape); the codec of the
 * request's era stamps them. Codecs are pure: no I/O, no clock.
 */
export interface EraCodec {
  readonly era: ProtocolEra;
  /** The HTTP status of a method this era does not have: 200 on the legacy wire, 404 on the modern one (S-111). */
  readonly methodNotFoundStatus: number;

  /** Whether a request of `protocolVersion` may call `method` in this era (registry membership, S-13). */
  has(method: string, protocolVersion: string): boolean;
  /** The client capabilities a request must declare to call `method` (S-38), or `undefined`. */
  requiredCapabilities(method: string): Readonly<Record<string, unknown>> | undefined;

  /** A handler's result as this era's wire carries it (server side). */
  encodeResult(method: string, result: NeutralResult, context: EncodeContext): Record<string, unknown>;
  /** A task, as created by `tools/call` or read by `tasks/get` (S-276, S-297, S-300). */
  encodeTask(method: 'tools/call' | 'tasks/get', task: NeutralTask, context: EncodeContext): Record<string, unknown>;
  /** A task as a status notification carries it: legacy `notifications/tasks/status` (S-284), modern `notifications/tasks` (S-304). */
  encodeTaskStatus(task: NeutralTask): Record<string, unknown>;
  /** What `tasks/cancel` answers: the cancelled task, or why it could not be (S-283, S-302). */
  encodeCancel(outcome: NeutralCancel, context: EncodeContext): { result: Record<string, unknown> } | { error: JsonRpcErrorObject };
  /** A handler's request for the client's input, when this era carries it by result (S-60); `undefined` when it cannot. */
  encodeInputRequired(request: NeutralInputRequired, context: EncodeContext): Record<string, unknown> | undefined;
  /** A neutral JSON-RPC error in this era's codes, and the HTTP status it travels with. */
  encodeError(error: JsonRpcErrorObject): { error: JsonRpcErrorObject; status: number };

  /** A request's params as this era's wire carries them (client side: the envelope in `_meta`, S-31). */
  encodeRequestParams(params: Record<string, unknown> | undefined, envelope: RequestEnvelope): Record<string, unknown>;
  /** A peer's result of `method`, lifted off this era's wire (client side). */
  decodeResult(method: string, raw: unknown): DecodedResult;
}

/** What a server-side encoding needs besides the value: the request's revision and, modern, our identity (S-35). */
export interface EncodeContext {
  protocolVersion: string;
  serverInfo: Implementation;
}

/** A handler's result, the same for both eras; `caching` for the cacheable methods (S-246). */
export interface NeutralResult {
  body: Record<string, unknown>;
  caching?: CacheableResultFields;
}

/**
 * A task, the same for both eras; legacy words it `ttl`/`pollInterval` (S-277), modern `ttlMs`/
 * `pollIntervalMs` with the status-specific fields (S-300, S-307).
 */
export interface NeutralTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** `input_required`: the requests the task waits on. */
  inputRequests?: Record<string, unknown>;
  /** Terminal: the call's result, or its JSON-RPC error. */
  result?: Record<string, unknown>;
  error?: JsonRpcErrorObject;
}

/** A `tasks/cancel`: the task it cancelled, or the refusal of a task already terminal. */
export type NeutralCancel = { task: NeutralTask } | { alreadyTerminal: JsonRpcErrorObject };

/** A handler that needs the client's answers first (S-60): the requests by key and, once sealed, the state. */
export interface NeutralInputRequired {
  inputRequests: Record<string, unknown>;
  requestState?: string;
}

/** What a client puts in a request besides its params (modern: the `_meta` envelope, S-31..S-34). */
export interface RequestEnvelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
}

/** A peer's result, read: final, a request for input (modern), a task, or not a result of this era. */
export type DecodedResult =
  | { kind: 'complete'; result: Record<string, unknown> }
  | { kind: 'input_required'; inputRequests: Record<string, unknown>; requestState?: string }
  | { kind: 'task'; task: Record<string, unknown> }
  | { kind: 'invalid'; message: string };

/** A tool without `execution` (S-197: a 2025-11-25 field, unknown to older revisions and gone in 2026-07-28). */
export function withoutExecution(tool: unknown): unknown {
  if (!isPlainObject(tool) || tool['execution'] === undefined) return tool;
  const { execution: _dropped, ...rest } = tool;
  return rest;
}
