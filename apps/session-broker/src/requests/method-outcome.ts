import type { CacheableResultFields, JsonRpcErrorObject, JsonRpcErrorResponse, NeutralCancel, NeutralTask } from '@mcp-platform/protocol-mcp';

/**
 * What a method handler produced, the same in both eras: the era's codec words it for the wire. A
 * result (with the data owner's caching hints, S-246), a task (created by `tools/call` or read by
 * `tasks/get`), a cancel, a request for the client's input (S-60), a JSON-RPC error (with the HTTP
 * status and headers it travels with while the response is still plain JSON, e.g. a 403 step-up
 * challenge), or nothing at all (a cancelled request gets no response, S-256).
 */
export type MethodOutcome =
  | { kind: 'result'; body: Record<string, unknown>; caching?: CacheableResultFields }
  | { kind: 'task'; task: NeutralTask }
  | { kind: 'cancel'; cancel: NeutralCancel }
  | InputRequiredOutcome
  | { kind: 'error'; error: JsonRpcErrorObject; status?: number; headers?: Record<string, string> }
  | { kind: 'none' };

/**
 * The client must answer these first (multi round-trip requests, S-60); `requestState` once sealed.
 * `continuation`: what the handler needs on the retry (sealed into the state, never sent as it is).
 */
export interface InputRequiredOutcome {
  kind: 'input_required';
  inputRequests: Record<string, unknown>;
  continuation?: Record<string, unknown>;
  requestState?: string;
}

/** The outcome of an owner's `{ inputRequired }` answer, its continuation kept for the round trip. */
export function inputRequired({
  inputRequests,
  continuation,
}: {
  inputRequests: Record<string, unknown>;
  continuation?: Record<string, unknown>;
}): InputRequiredOutcome {
  return { kind: 'input_required', inputRequests, ...(continuation === undefined ? {} : { continuation }) };
}

export function result(body: Record<string, unknown>, caching?: CacheableResultFields): MethodOutcome {
  return caching === undefined ? { kind: 'result', body } : { kind: 'result', body, caching: { ttlMs: caching.ttlMs, cacheScope: caching.cacheScope } };
}

/** An error outcome, from an error object or a whole error response (whose id the front end sets anew). */
export function failure(error: JsonRpcErrorObject | JsonRpcErrorResponse, status?: number, headers?: Record<string, string>): MethodOutcome {
  return {
    kind: 'error',
    error: 'jsonrpc' in error ? error.error : error,
    ...(status === undefined ? {} : { status }),
    ...(headers === undefined ? {} : { headers }),
  };
}
