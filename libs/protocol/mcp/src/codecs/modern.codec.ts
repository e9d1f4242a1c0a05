import { JsonRpcErrorCode } from '../error-codes';
import { ModernMetaKey } from '../meta';
import { isMcpMethod, mcpMethod } from '../methods/method-registry';
import { isPlainObject } from '../plain-object';
import { ResultType } from '../results';
import type { EncodeContext, EraCodec, NeutralTask } from './era-codec';
import { withoutExecution } from './era-codec';

/** Errors that are the request's envelope or headers, always HTTP 400 (S-115, S-38, S-52). */
const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([
  JsonRpcErrorCode.HeaderMismatch,
  JsonRpcErrorCode.MissingRequiredClientCapability,
  JsonRpcErrorCode.UnsupportedProtocolVersion,
]);

/**
 * The modern era (2026-07-28): every result gets `resultType` (S-6) and our `serverInfo` in `_meta`
 * (S-35; a handler's own `_meta` keys stay), cacheable results their `ttlMs` and `cacheScope` (S-246),
 * `tools/list` loses the 2025-only `execution` field, tasks are worded with `ttlMs`/`pollIntervalMs`
 * (S-307), `-32002` becomes `-32602` (S-210), and a method the era lacks is 404 (S-111). Requests carry
 * the `_meta` envelope (S-31..S-34).
 */
export const modernCodec: EraCodec = {
  era: 'modern',
  methodNotFoundStatus: 404,

  has(method) {
    return isMcpMethod(method) && mcpMethod(method).modern !== undefined;
  },

  requiredCapabilities(method) {
    return isMcpMethod(method) ? mcpMethod(method).modern?.requires : undefined;
  },

  encodeResult(method, { body, caching }, context) {
    const cacheable = isMcpMethod(method) && mcpMethod(method).cacheable === true;
    const shaped = method === 'tools/list' && Array.isArray(body['tools']) ? { ...body, tools: body['tools'].map(withoutExecution) } : body;
    return complete({ ...shaped, ...(cacheable && caching ? { ttlMs: caching.ttlMs, cacheScope: caching.cacheScope } : {}) }, context);
  },

  encodeTask(method, task, context) {
    // spec S-297: a call that became a task answers its fields with resultType "task"; tasks/get the detailed task (S-300).
    if (method === 'tools/call') return { ...modernTask(task), resultType: 'task', _meta: serverInfoMeta(context) };
    return complete(modernDetailedTask(task), context);
  },

  encodeTaskStatus(task) {
    return modernDetailedTask(task);
  },

  encodeCancel(_outcome, context) {
    // spec S-302: cancellation is cooperative; the answer is an empty acknowledgement, whatever happens to the work.
    return { result: complete({}, context) };
  },

  encodeInputRequired({ inputRequests, requestState }, context) {
    // spec S-60, S-70: the requests, the sealed state, our identity, and no caching hints.
    return {
      resultType: ResultType.InputRequired,
      inputRequests,
      ...(requestState === undefined ? {} : { requestState }),
      _meta: serverInfoMeta(context),
    };
  },

  encodeError(error) {
    // spec S-210: an unknown resource is invalid params in this revision, never -32002.
    const mapped = error.code === JsonRpcErrorCode.ResourceNotFound ? { ...error, code: JsonRpcErrorCode.InvalidParams } : error;
    const status = mapped.code === JsonRpcErrorCode.MethodNotFound ? 404 : BAD_REQUEST_CODES.has(mapped.code) ? 400 : 200;
    return { error: mapped, status };
  },

  encodeRequestParams(params, envelope) {
    const meta = isPlainObject(params?.['_meta']) ? params['_meta'] : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [ModernMetaKey.ProtocolVersion]: envelope.protocolVersion,
        [ModernMetaKey.ClientCapabilities]: envelope.clientCapabilities,
        ...(envelope.clientInfo === undefined ? {} : { [ModernMetaKey.ClientInfo]: envelope.clientInfo }),
        ...(envelope.logLevel === undefined ? {} : { [ModernMetaKey.LogLevel]: envelope.logLevel }),
      },
    };
  },

  decodeResult(method, raw) {
    if (!isPlainObject(raw)) return { kind: 'invalid', message: `the ${method} result is not an object` };
    const { resultType, ...result } = raw;
    // spec S-6: resultType is required on this wire; an unknown one is not retried.
    if (resultType === ResultType.Complete) return { kind: 'complete', result };
    if (resultType === ResultType.InputRequired) {
      if (!isPlainObject(result['inputRequests'])) return { kind: 'invalid', message: `the ${method} input_required result has no inputRequests` };
      const requestState = result['requestState'];
      if (requestState !== undefined && typeof requestState !== 'string') return { kind: 'invalid', message: `the ${method} requestState is not a string` };
      return { kind: 'input_required', inputRequests: result['inputRequests'], ...(requestState === undefined ? {} : { requestState }) };
    }
    if (resultType === 'task') return { kind: 'task', task: result };
    return { kind: 'invalid', message: resultType === undefined ? `the ${method} result has no resultType` : `the ${method} result has an unknown resultType` };
  },
};

function serverInfoMeta(context: EncodeContext): Record<string, unknown> {
  return { [ModernMetaKey.ServerInfo]: context.serverInfo };
}

/** `resultType: "complete"` and our `serverInfo`, beside the handler's own `_meta` keys. */
function complete(result: Record<string, unknown>, context: EncodeContext): Record<string, unknown> {
  const meta = isPlainObject(result['_meta']) ? result['_meta'] : {};
  return { ...result, resultType: ResultType.Complete, _meta: { ...meta, ...serverInfoMeta(context) } };
}

/** The modern task fields (S-297, S-307). */
function modernTask(task: NeutralTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
  };
}

/** The `DetailedTask` (S-300): the status-specific fields, input requests, result or error. */
function modernDetailedTask(task: NeutralTask): Record<string, unknown> {
  const fields = modernTask(task);
  if (task.status === 'input_required' && task.inputRequests) return { ...fields, inputRequests: task.inputRequests };
  if (task.result !== undefined) return { ...fields, result: task.result };
  if (task.error !== undefined) return { ...fields, error: task.error };
  return fields;
}
