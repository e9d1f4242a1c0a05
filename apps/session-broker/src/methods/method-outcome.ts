import type { JsonRpcErrorResponse } from '@mcp-platform/protocol-mcp';

/**
 * What a method handler produced: a result, a JSON-RPC error (with the HTTP status it travels with),
 * or nothing at all (a cancelled request gets no response, S-256).
 */
export type MethodOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: JsonRpcErrorResponse; status?: number }
  | { kind: 'none' };

export const result = (value: Record<string, unknown>): MethodOutcome => ({ kind: 'result', result: value });
export const failure = (error: JsonRpcErrorResponse, status?: number): MethodOutcome =>
  status === undefined ? { kind: 'error', error } : { kind: 'error', error, status };
