import { Injectable, Logger } from '@nestjs/common';
import { taskScheduler, toolExecutor, type Principal, type RpcContract, type RpcRequest, type RpcResponse } from '@mcp-platform/protocol-contracts';
import { invalidParamsError, JsonRpcErrorCode, jsonRpcError, RELATED_TASK_META_KEY, ServerErrorCode, type LoggingLevel, type ProtocolEra, type RequestId } from '@mcp-platform/protocol-mcp';
import { isRpcError, MessageBus, WireErrorCode } from '@mcp-platform/shared-messaging';
import { wireErrorToJsonRpc } from '../calls/wire-error.mapper';
import { failure, result, type MethodOutcome } from '../methods/method-outcome';
import { platformFailureToJsonRpc } from '../methods/method-support';
import type { LazyResponse } from '../streams/lazy-response';
import { keepAliveEvery } from '../streams/stream-expiry';
import { TaskRateLimiter } from './task-rate-limiter';
import { TaskResultStreams } from './task-result-streams.registry';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';

type TaskView = taskScheduler.TaskView;
type TaskState = taskScheduler.TaskState;

/** The modern era's tasks extension (S-295). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How long one `awaitTask` round waits before `tasks/result` asks again. */
const AWAIT_ROUND_MS = 20_000;
/** A `tasks/result` still waiting after this long streams, with keep-alive comments, so proxies keep the exchange open. */
const STREAM_AFTER_MS = 1_000;

/** Who asks, where, and through which legacy session. */
export interface TaskRequestContext {
  era: ProtocolEra;
  requestId: RequestId;
  virtualServer: VirtualServer;
  principal: Principal;
  sessionId?: string;
}

/** A tool call to run as a task. */
export interface TaskCallContext extends TaskRequestContext {
  name: string;
  arguments?: Record<string, unknown>;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  requestedTtlMs?: number;
  /** Legacy: the request's progress token, valid for the task's whole life. */
  progressToken?: string | number;
  /** Legacy: the session's log level. */
  logLevel?: LoggingLevel;
}

/**
 * The `tasks/*` methods and task creation for both eras, over the task scheduler (which owns the tasks,
 * bound to the caller, not to a session: S-289). The eras word the same task differently: legacy
 * `ttl`/`pollInterval` (S-277), modern `ttlMs`/`pollIntervalMs` and status-specific fields (S-300, S-307).
 */
@Injectable()
export class TaskMethods {
  private readonly logger = new Logger(TaskMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly resultStreams: TaskResultStreams,
    private readonly rateLimiter: TaskRateLimiter,
  ) {}

  /**
   * Creates the task of a tool call (durable before this answers, S-298). Legacy: `CreateTaskResult`
   * `{ task }` (S-276); modern: a `task` outcome, the task's fields, which the modern endpoint answers
   * with `resultType: "task"` (S-297).
   */
  create(context: TaskCallContext): Promise<MethodOutcome> {
    return this.operation(context, 'tools/call (task)', async () => {
      const task = await this.ask(context, taskScheduler.createTask, {
        era: context.era,
        ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
        call: {
          tenant: context.virtualServer.tenant,
          server: context.virtualServer.name,
          name: context.name,
          ...(context.arguments === undefined ? {} : { arguments: context.arguments }),
          protocolVersion: context.protocolVersion,
          clientCapabilities: context.clientCapabilities,
          ...(context.progressToken === undefined ? {} : { progressToken: context.progressToken }),
          ...(context.logLevel === undefined ? {} : { logLevel: context.logLevel }),
        },
        ...(context.requestedTtlMs === undefined ? {} : { requestedTtlMs: context.requestedTtlMs }),
      });
      return context.era === 'legacy' ? result({ task: legacyTask(task) }) : { kind: 'task', task: modernTask(task) };
    });
  }

  /** `tasks/get` (S-280, S-300). */
  get(context: TaskRequestContext, params: Record<string, unknown> | undefined): Promise<MethodOutcome> {
    return this.operation(context, 'tasks/get', async () => {
      const taskId = readTaskId(params);
      if (taskId === undefined) return failure(invalidTaskId(context.requestId));
      const state = await this.ask(context, taskScheduler.getTask, { taskId, ...owned(context) });
      return result(context.era === 'legacy' ? legacyTask(state.task) : modernDetailedTask(state));
    });
  }

  /**
   * Legacy `tasks/result` (S-281): waits, on whichever replica, until the task is terminal, then answers
   * exactly what the call would have (its result with `related-task` in `_meta`, or its JSON-RPC error).
   * A long wait becomes an SSE stream with keep-alive comments; the client leaving ends the wait. While
   * it waits, the task's requests for its client come on this stream (S-286), whichever of its owner's
   * sessions it is in (a reconnected client answers its task): the ones its run is waiting on are sent
   * again as it opens. One token of the rate limit however many rounds it waits.
   */
  result(context: TaskRequestContext, params: Record<string, unknown> | undefined, response: LazyResponse): Promise<MethodOutcome> {
    return this.operation(context, 'tasks/result', async () => {
      const taskId = readTaskId(params);
      if (taskId === undefined) return failure(invalidTaskId(context.requestId));
      const streaming = setTimeout(() => response.openStream(), STREAM_AFTER_MS);
      const keepAlive = keepAliveEvery(response);
      let detach: (() => void) | undefined;
      try {
        // The caller's task, read first: only its owner's stream carries its requests (S-289), in any session.
        const first = await this.ask(context, taskScheduler.getTask, { taskId, ...owned(context) });
        if (first.outcome !== undefined || taskScheduler.isTerminalTaskStatus(first.task.status)) return taskResult(first, context.requestId);
        const sessionId = context.sessionId;
        if (sessionId !== undefined) {
          detach = this.resultStreams.attach(taskId, response);
          // Attached first: a request sent again reaches this stream.
          this.bus.emit(toolExecutor.taskResultAwaited, { taskId, sessionId });
        }
        for (;;) {
          const state = await this.ask(context, taskScheduler.awaitTask, { taskId, waitMs: AWAIT_ROUND_MS, ...owned(context) });
          if (state.outcome !== undefined || taskScheduler.isTerminalTaskStatus(state.task.status)) return taskResult(state, context.requestId);
          if (!response.open) return { kind: 'none' };
        }
      } finally {
        detach?.();
        clearTimeout(streaming);
        clearInterval(keepAlive);
      }
    });
  }

  /** Legacy `tasks/list` (S-282): only the caller's tasks, newest first. */
  list(context: TaskRequestContext, params: Record<string, unknown> | undefined): Promise<MethodOutcome> {
    return this.operation(context, 'tasks/list', async () => {
      const cursor = params?.['cursor'];
      if (cursor !== undefined && typeof cursor !== 'string') return failure(invalidParamsError(context.requestId, 'Invalid params: cursor must be a string'));
      const page = await this.ask(context, taskScheduler.listTasks, { tenant: context.virtualServer.tenant, ...(cursor === undefined ? {} : { cursor }), ...owned(context) });
      return result({ tasks: page.tasks.map(legacyTask), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) });
    });
  }

  /**
   * `tasks/cancel`: the task is `cancelled` before the answer (S-283). Legacy: the task, and `-32602` for
   * a terminal one; modern: an empty acknowledgement whatever happens to the work (S-302).
   */
  cancel(context: TaskRequestContext, params: Record<string, unknown> | undefined): Promise<MethodOutcome> {
    return this.operation(context, 'tasks/cancel', async () => {
      const taskId = readTaskId(params);
      if (taskId === undefined) return failure(invalidTaskId(context.requestId));
      try {
        const task = await this.ask(context, taskScheduler.cancelTask, { taskId, ...owned(context) });
        return result(context.era === 'legacy' ? legacyTask(task) : {});
      } catch (error) {
        // A terminal task cannot be cancelled; the modern era acknowledges anyway (cooperative, S-302).
        if (context.era === 'modern' && isRpcError(error) && error.code === WireErrorCode.InvalidParams) return result({});
        throw error;
      }
    });
  }

  /** Modern `tasks/update` (S-301): the client's answers to the task's input requests; an empty acknowledgement. */
  update(context: TaskRequestContext, params: Record<string, unknown> | undefined): Promise<MethodOutcome> {
    return this.operation(context, 'tasks/update', async () => {
      const taskId = readTaskId(params);
      if (taskId === undefined) return failure(invalidTaskId(context.requestId));
      const inputResponses = params?.['inputResponses'];
      if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) {
        return failure(invalidParamsError(context.requestId, 'Invalid params: inputResponses must be an object'));
      }
      await this.ask(context, taskScheduler.updateTask, { taskId, inputResponses: inputResponses as Record<string, unknown>, ...owned(context) });
      return result({});
    });
  }

  /**
   * One task operation: the requester's token first (S-291), then `work`; a failure of the platform
   * (the scheduler's refusal, a timeout) becomes the JSON-RPC error the client gets.
   */
  private async operation(context: TaskRequestContext, method: string, work: () => Promise<MethodOutcome>): Promise<MethodOutcome> {
    const refused = this.overLimit(context, method);
    if (refused) return refused;
    try {
      return await work();
    } catch (error) {
      return failure(platformFailureToJsonRpc(this.logger, context.requestId, method, error));
    }
  }

  /** A request to the task scheduler as the caller. */
  private ask<C extends RpcContract>(context: TaskRequestContext, contract: C, request: RpcRequest<C>): Promise<RpcResponse<C>> {
    return this.bus.request(contract, request, { context: { principal: context.principal } });
  }

  /**
   * Takes the requester's token for one task operation (S-291), before anything is asked of the
   * scheduler; without one, the 429 outcome. Excess polling is logged, once a minute per requester at
   * most (S-292).
   */
  private overLimit(context: TaskRequestContext, method: string): MethodOutcome | undefined {
    const decision = this.rateLimiter.take(TaskRateLimiter.requesterKey(context.principal, context.sessionId));
    if (decision.allowed) return undefined;
    const { retryAfterSeconds } = decision;
    if (decision.report) {
      this.logger.warn(
        `${method}: ${requesterOf(context)} exceeds ${this.rateLimiter.operationsPerMinute} task operations per minute: ` +
          `refused with 429 (${decision.refusedSinceReport} refused since the last warning)`,
      );
    }
    return failure(
      jsonRpcError(context.requestId, ServerErrorCode.TooManyRequests, `Too many task requests: retry after ${retryAfterSeconds} s`),
      429,
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
}

/** The requester as the log names it; a legacy session id is a credential of sorts, so never logged. */
function requesterOf({ principal, sessionId }: TaskRequestContext): string {
  if (principal.anonymous) return `an anonymous caller of tenant ${principal.tenant}${sessionId === undefined ? '' : ' (legacy session)'}`;
  return `subject ${principal.subject} of tenant ${principal.tenant}${principal.clientId === undefined ? '' : ` (client ${principal.clientId})`}`;
}

function owned(context: TaskRequestContext): { sessionId?: string } {
  return context.sessionId === undefined ? {} : { sessionId: context.sessionId };
}

function readTaskId(params: Record<string, unknown> | undefined): string | undefined {
  const taskId = params?.['taskId'];
  return typeof taskId === 'string' && taskId.length > 0 && taskId.length <= 128 ? taskId : undefined;
}

function invalidTaskId(id: RequestId) {
  // spec S-288: an invalid task id is -32602.
  return invalidParamsError(id, 'Invalid params: taskId must be a non-empty string');
}

/** The legacy `Task` (S-277). */
export function legacyTask(task: TaskView): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

/** The modern task fields (S-297, S-307); the caller adds `resultType`. */
function modernTask(task: TaskView): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/**
 * The modern `DetailedTask`: the task with its status-specific fields (S-300), input requests, result or
 * error; what `tasks/get` answers and a `notifications/tasks` carries (S-304).
 */
export function modernDetailedTask(state: TaskState): Record<string, unknown> {
  const fields = modernTask(state.task);
  if (state.task.status === 'input_required' && state.task.inputRequests) return { ...fields, inputRequests: state.task.inputRequests };
  if (state.outcome === undefined) {
    // spec S-300: a failed task carries its error, even one the platform failed itself (no outcome: its worker died).
    return state.task.status === 'failed' ? { ...fields, error: { code: JsonRpcErrorCode.InternalError, message: failedWithoutOutcome(state.task) } } : fields;
  }
  if ('result' in state.outcome) return { ...fields, result: state.outcome.result };
  return { ...fields, error: wireErrorToJsonRpc(undefined, state.outcome.error).error };
}

/** What legacy `tasks/result` answers for a terminal task (S-281, S-285). */
function taskResult(state: TaskState, requestId: RequestId): MethodOutcome {
  const related = { [RELATED_TASK_META_KEY]: { taskId: state.task.taskId } };
  if (state.outcome === undefined) {
    // Terminal without an outcome: cancelled (S-283), or failed by the platform itself (S-287: its status message says why).
    if (state.task.status === 'failed') return failure(jsonRpcError(requestId, JsonRpcErrorCode.InternalError, failedWithoutOutcome(state.task), related));
    return failure(jsonRpcError(requestId, JsonRpcErrorCode.InvalidParams, `Task ${state.task.taskId} was cancelled: it has no result`, related));
  }
  if ('error' in state.outcome) {
    const answer = wireErrorToJsonRpc(requestId, state.outcome.error);
    return failure(answer);
  }
  const outcome = state.outcome.result;
  const meta = typeof outcome['_meta'] === 'object' && outcome['_meta'] !== null ? (outcome['_meta'] as Record<string, unknown>) : {};
  return result({ ...outcome, _meta: { ...meta, ...related } });
}

/**
 * The error of a task the scheduler failed without running it to an end (its worker died running a tool
 * that is not idempotent, or it was delivered too often): the status message, written by the platform.
 */
function failedWithoutOutcome(task: TaskView): string {
  return `Task ${task.taskId} failed: ${task.statusMessage ?? 'it has no result'}`;
}
