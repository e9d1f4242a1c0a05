import { isMcpMethod, mcpMethod } from '../methods/method-registry';
import { isPlainObject } from '../plain-object';
import type { DecodedResult, EraCodec, NeutralTask } from './era-codec';
import { withoutExecution } from './era-codec';

/** `execution.taskSupport` (S-197) arrived with 2025-11-25; older revisions never hear of it. */
const EXECUTION_SINCE = '2025-11-25';

/**
 * The legacy era (2025-03-26, 2025-06-18, 2025-11-25): one wire vocabulary for the three revisions,
 * methods gated by the revision that brought them (tasks: 2025-11-25). Results are the neutral body
 * without caching hints, `resultType` or `serverInfo` (the handshake carries the server's identity);
 * errors keep their codes (`-32002` included, S-209) and travel in HTTP 200 unless the edge chose a
 * status; requests carry no envelope.
 */
export const legacyCodec: EraCodec = {
  era: 'legacy',
  methodNotFoundStatus: 200,

  has(method, protocolVersion) {
    if (!isMcpMethod(method)) return false;
    const presence = mcpMethod(method).legacy;
    return presence !== undefined && protocolVersion >= presence.since;
  },

  requiredCapabilities() {
    // Legacy capabilities are negotiated once, at initialize; no method asks for more per request.
    return undefined;
  },

  encodeResult(method, { body }, { protocolVersion }) {
    if (method === 'tools/list' && protocolVersion < EXECUTION_SINCE && Array.isArray(body['tools'])) {
      return { ...body, tools: body['tools'].map(withoutExecution) };
    }
    if (method === 'tasks/list' && Array.isArray(body['tasks'])) return { ...body, tasks: (body['tasks'] as NeutralTask[]).map(legacyTask) };
    return body;
  },

  encodeTask(method, task) {
    // spec S-276: a task-augmented call answers CreateTaskResult `{ task }`; tasks/get the task itself (S-280).
    return method === 'tools/call' ? { task: legacyTask(task) } : legacyTask(task);
  },

  encodeTaskStatus(task) {
    return legacyTask(task);
  },

  encodeCancel(outcome) {
    // spec S-283: the cancelled task; a terminal one cannot be cancelled (-32602).
    return 'task' in outcome ? { result: legacyTask(outcome.task) } : { error: outcome.alreadyTerminal };
  },

  encodeInputRequired() {
    // The legacy era asks its client on the stream (server-to-client requests), never by result.
    return undefined;
  },

  encodeError(error) {
    return { error, status: 200 };
  },

  encodeRequestParams(params) {
    return params ?? {};
  },

  decodeResult(method, raw) {
    if (!isPlainObject(raw)) return { kind: 'invalid', message: `the ${method} result is not an object` };
    // spec S-276: a task-augmented call's CreateTaskResult.
    if (method === 'tools/call' && isPlainObject(raw['task']) && !Array.isArray(raw['content'])) return { kind: 'task', task: raw['task'] };
    // `resultType` is foreign vocabulary on this wire: dropped, like any field a result may carry.
    const { resultType: _foreign, ...result } = raw;
    return { kind: 'complete', result } satisfies DecodedResult;
  },
};

/** The legacy `Task` (S-277). */
function legacyTask(task: NeutralTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollInterval: task.pollIntervalMs }),
  };
}
