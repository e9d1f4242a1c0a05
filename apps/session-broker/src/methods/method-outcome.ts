import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { JsonRpcErrorResponse } from '@mcp-platform/protocol-mcp';

/**
 * What a method handler produced: a result, a JSON-RPC error (with the HTTP status and headers it
 * travels with while the response is still plain JSON, e.g. a 403 step-up challenge), or nothing at
 * all (a cancelled request gets no response, S-256).
 */
export type MethodOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  /** Modern era: the call became a task; its fields, answered with `resultType: "task"` (S-297). */
  | { kind: 'task'; task: Record<string, unknown> }
  | { kind: 'error'; error: JsonRpcErrorResponse; status?: number; headers?: Record<string, string> }
  | { kind: 'none' };

export const result = (value: Record<string, unknown>): MethodOutcome => ({ kind: 'result', result: value });
export const failure = (error: JsonRpcErrorResponse, status?: number, headers?: Record<string, string>): MethodOutcome => ({
  kind: 'error',
  error,
  ...(status === undefined ? {} : { status }),
  ...(headers === undefined ? {} : { headers }),
});

/**
 * A modern request whose handler needs the client's answers first (multi round-trip requests, S-60):
 * the requests by input key and, once sealed, the state the client echoes on its retry.
 */
export interface InputRequiredOutcome {
  kind: 'input_required';
  inputRequests: Record<string, toolExecutor.CallInputRequest>;
  requestState?: string;
}
