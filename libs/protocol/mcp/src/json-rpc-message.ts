import { RequestIdSchema } from '@modelcontextprotocol/core';
import { JSONRPC_VERSION } from '@modelcontextprotocol/core/internal';
import { z } from 'zod';
import type { RequestId } from './json-rpc-errors';

/**
 * One incoming JSON-RPC message, classified (S-1, S-2, S-9, S-10). `invalid` carries the id when
 * it could be read, so the `-32600` answer can echo it (S-7).
 */
export const IncomingMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('request'), id: RequestIdSchema, method: z.string(), params: z.record(z.string(), z.unknown()).optional() }),
  z.object({ kind: z.literal('notification'), method: z.string(), params: z.record(z.string(), z.unknown()).optional() }),
  z.object({ kind: z.literal('response'), id: RequestIdSchema }),
  z.object({ kind: z.literal('invalid'), id: RequestIdSchema.optional(), reason: z.string() }),
]);
export type IncomingMessage = z.infer<typeof IncomingMessageSchema>;

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const RESPONSE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'result', 'error']);

/**
 * Classifies a parsed body without a schema pass (this runs on every request): the same rules as
 * core's strict `JSONRPCMessageSchema`, checked by hand.
 */
export function classifyMessage(body: unknown): IncomingMessage {
  if (Array.isArray(body)) return { kind: 'invalid', reason: 'JSON-RPC batches are not supported: send one message per request' };
  if (typeof body !== 'object' || body === null) return { kind: 'invalid', reason: 'the body must be a JSON-RPC message object' };
  const message = body as Record<string, unknown>;
  const id = readableId(message['id']);
  if (message['jsonrpc'] !== JSONRPC_VERSION) return invalid(id, 'jsonrpc must be "2.0"');
  if (Object.hasOwn(message, 'method')) {
    const method = message['method'];
    if (typeof method !== 'string' || method.length === 0) return invalid(id, 'method must be a non-empty string');
    for (const key of Object.keys(message)) if (!REQUEST_KEYS.has(key)) return invalid(id, `unexpected member "${key.slice(0, 64)}"`);
    const params = message['params'];
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      return invalid(id, 'params must be an object');
    }
    const typedParams = params as Record<string, unknown> | undefined;
    if (!Object.hasOwn(message, 'id')) return { kind: 'notification', method, ...(typedParams ? { params: typedParams } : {}) };
    if (id === undefined) return invalid(undefined, 'id must be a string or an integer (null is not allowed)');
    return { kind: 'request', id, method, ...(typedParams ? { params: typedParams } : {}) };
  }
  if (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error')) {
    for (const key of Object.keys(message)) if (!RESPONSE_KEYS.has(key)) return invalid(id, `unexpected member "${key.slice(0, 64)}"`);
    if (Object.hasOwn(message, 'result') === Object.hasOwn(message, 'error')) return invalid(id, 'a response carries either result or error');
    if (id === undefined) return invalid(undefined, 'a response needs a string or integer id');
    return { kind: 'response', id };
  }
  return invalid(id, 'the message has no method');
}

function readableId(value: unknown): RequestId | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return undefined;
}

function invalid(id: RequestId | undefined, reason: string): IncomingMessage {
  return id === undefined ? { kind: 'invalid', reason } : { kind: 'invalid', id, reason };
}

/**
 * How deep `params` may nest. Far beyond any real tool's arguments, and low enough that no later
 * hop (serialization, schema validation) can run out of stack on a hostile body.
 */
export const MAX_PARAMS_DEPTH = 64;

/** Whether a parsed JSON value nests objects/arrays deeper than `limit` (iterative: no recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
