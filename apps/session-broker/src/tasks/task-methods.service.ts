import { Injectable, Logger } from '@nestjs/common';
import { type RpcContract, type RpcRequest, type RpcResponse, taskScheduler, toolExecutor, type UpstreamTask } from '@mcp-platform/protocol-contracts';
import {
  eraOfVersion,
  invalidParamsError,
  jsonRpcError,
  JsonRpcErrorCode,
  type ListParams,
  type NeutralTask,
  RELATED_TASK_META_KEY,
  ServerErrorCode,
  type TaskIdParams,
  type UpdateTaskParams,
} from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { isRpcError, MessageBus, WireErrorCode } from '@mcp-platform/shared-messaging';
import { wireErrorToJsonRpc } from '../calls/wire-error.mapper';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome, result } from '../requests/method-outcome';
import { nextCursorOf, platformFailure } from '../requests/method-support';
import { keepAliveEvery } from '../streams/stream-expiry';
import { TaskRateLimiter } from './task-rate-limiter';
import { TaskResultStreams } from './task-result-streams.registry';

type TaskView = taskScheduler.TaskView;
type TaskState = taskScheduler.TaskState;

/** How long one `awaitTask` round waits before `tasks/result` asks again. */
const AWAIT_ROUND_MS = 20_000;
/** A `tasks/result` still waiting after this long streams, with keep-alive comments, so proxies keep the exchange open. */
const STREAM_AFTER_MS = 1_000;

/** A tool call to run as a task. */
export interface TaskCall {
  name: string;
  arguments?: Record<string, unknown>;
  requestedTtlMs?: number;
  /** The request's progress token, valid for the task's whole life (a session's task). */
  progressToken?: string | number;
  /** The answers the call gathered before its task (the tool's `beforeTask` inputs), its run's first answers. */
  inputResponses?: Record<string, unknown>;
  /** The upstream server's task the call's offer created (issue 15 §4), which the task's runs follow. */
  upstreamTask?: UpstreamTask;
}

/**
 * The `tasks/*` methods and task creation, the same for both eras, over the task scheduler (which owns
 * the tasks, bound to the caller, not to a session: S-289). Answers are neutral tasks; the era's codec
 * words them (legacy `ttl`/`pollInterval`, S-277; modern `ttlMs`/`pollIntervalMs`, S-300, S-307).
 */
@Injectable()
export class TaskMethods {
  private readonly logger = new Logger(TaskMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly resultStreams: TaskResultStreams,
    private readonly rateLimiter: TaskRateLimiter,
    private readonly ids: IdSource,
  ) {}

  /** Creates the task of a tool call (durable before this answers, S-298); the codec words it (S-276, S-297). */
  create(call: MethodCall, taskCall: TaskCall): Promise<MethodOutcome> {
    return this.operation(call, 'tools/call (task)', async () => {
      const task = await this.ask(call, taskScheduler.createTask, {
        // The scheduler words the task's messages for its era: the one of the request's revision.
        era: eraOfVersion(call.protocolVersion),
        ...owned(call),
        call: {
          tenant: call.virtualServer.tenant,
          server: call.virtualServer.name,
          name: taskCall.name,
          ...(taskCall.arguments === undefined ? {} : { arguments: taskCall.arguments }),
          protocolVersion: call.protocolVersion,
          clientCapabilities: call.clientCapabilities,
          ...(taskCall.progressToken === undefined ? {} : { progressToken: taskCall.progressToken }),
          ...(call.logLevel === undefined || call.session === undefined ? {} : { logLevel: call.logLevel }),
          ...(taskCall.upstreamTask === undefined ? {} : { upstreamTask: taskCall.upstreamTask }),
        },
        ...(taskCall.requestedTtlMs === undefined ? {} : { requestedTtlMs: taskCall.requestedTtlMs }),
        ...(taskCall.inputResponses === undefined ? {} : { inputResponses: taskCall.inputResponses }),
      });
      return { kind: 'task', task: neutralTask({ task }) };
    });
  }

  /** `tasks/get` (S-280, S-300). */
  get(command: TaskIdParams, call: MethodCall): Promise<MethodOutcome> {
    return this.operation(call, 'tasks/get', async () => {
      const state = await this.ask(call, taskScheduler.getTask, { taskId: command.taskId, ...owned(call) });
      return { kind: 'task', task: neutralTask(state) };
    });
  }

  /**
   * `tasks/result` (S-281): waits, on whichever replica, until the task is terminal, then answers
   * exactly what the call would have (its result with `related-task` in `_meta`, or its JSON-RPC error).
   * A long wait becomes an SSE stream with keep-alive comments; the client leaving ends the wait. While
   * it waits, the task's requests for its client come on this stream (S-286), whichever of its owner's
   * sessions it is in (a reconnected client answers its task): the ones its run is waiting on are sent
   * again as it opens. One token of the rate limit however many rounds it waits.
   */
  result(command: TaskIdParams, call: MethodCall): Promise<MethodOutcome> {
    return this.operation(call, 'tasks/result', async () => {
      const { taskId } = command;
      const response = call.response;
      const streaming = setTimeout(() => response.openStream(), STREAM_AFTER_MS);
      const keepAlive = keepAliveEvery(response);
      let detach: (() => void) | undefined;
      try {
        // The caller's task, read first: only its owner's stream carries its requests (S-289), in any session.
        const first = await this.ask(call, taskScheduler.getTask, { taskId, ...owned(call) });
        if (first.outcome !== undefined || taskScheduler.isTerminalTaskStatus(first.task.status)) return taskResult(first);
        const sessionId = call.session?.id;
        if (sessionId !== undefined) {
          detach = this.resultStreams.attach(taskId, response);
          // Attached first: a request sent again reaches this stream.
          this.bus.emit(toolExecutor.taskResultAwaited, { taskId, sessionId });
        }
        for (;;) {
          const state = await this.ask(call, taskScheduler.awaitTask, { taskId, waitMs: AWAIT_ROUND_MS, ...owned(call) });
          if (state.outcome !== undefined || taskScheduler.isTerminalTaskStatus(state.task.status)) return taskResult(state);
          if (!response.open) return { kind: 'none' };
        }
      } finally {
        detach?.();
        clearTimeout(streaming);
        clearInterval(keepAlive);
      }
    });
  }

  /** `tasks/list` (S-282): only the caller's tasks, newest first. */
  list(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    return this.operation(call, 'tasks/list', async () => {
      const page = await this.ask(call, taskScheduler.listTasks, {
        tenant: call.virtualServer.tenant,
        ...(command.cursor === undefined ? {} : { cursor: command.cursor }),
        ...owned(call),
      });
      return result({ tasks: page.tasks.map((task) => neutralTask({ task })), ...nextCursorOf(page) });
    });
  }

  /** `tasks/cancel`: the task is `cancelled` before the answer (S-283); a terminal one cannot be. */
  cancel(command: TaskIdParams, call: MethodCall): Promise<MethodOutcome> {
    return this.operation(call, 'tasks/cancel', async () => {
      try {
        const task = await this.ask(call, taskScheduler.cancelTask, { taskId: command.taskId, ...owned(call) });
        return { kind: 'cancel', cancel: { task: neutralTask({ task }) } };
      } catch (error) {
        // The scheduler's word for a terminal task; the codec decides whether that is an error (S-283, S-302).
        if (isRpcError(error) && error.code === WireErrorCode.InvalidParams) {
          return { kind: 'cancel', cancel: { alreadyTerminal: wireErrorToJsonRpc(undefined, error.toWire()).error } };
        }
        throw error;
      }
    });
  }

  /** `tasks/update` (S-301): the client's answers to the task's input requests; an empty acknowledgement. */
  update(command: UpdateTaskParams, call: MethodCall): Promise<MethodOutcome> {
    return this.operation(call, 'tasks/update', async () => {
      await this.ask(call, taskScheduler.updateTask, { taskId: command.taskId, inputResponses: command.inputResponses, ...owned(call) });
      return result({});
    });
  }

  /**
   * One task operation: the requester's token first (S-291), then `work`; a failure of the platform
   * (the scheduler's refusal, a timeout) becomes the JSON-RPC error the client gets.
   */
  private async operation(call: MethodCall, method: string, work: () => Promise<MethodOutcome>): Promise<MethodOutcome> {
    const refused = this.overLimit(call, method);
    if (refused) return refused;
    try {
      return await work();
    } catch (error) {
      return platformFailure(this.logger, this.ids, method, error);
    }
  }

  /** A request to the task scheduler as the caller. */
  private ask<C extends RpcContract>(call: MethodCall, contract: C, request: RpcRequest<C>): Promise<RpcResponse<C>> {
    return this.bus.request(contract, request, { context: { principal: call.principal } });
  }

  /**
   * Takes the requester's token for one task operation (S-291), before anything is asked of the
   * scheduler; without one, the 429 outcome. Excess polling is logged, once a minute per requester at
   * most (S-292).
   */
  private overLimit(call: MethodCall, method: string): MethodOutcome | undefined {
    const decision = this.rateLimiter.take(TaskRateLimiter.requesterKey(call.principal, call.session?.id));
    if (decision.allowed) return undefined;
    const { retryAfterSeconds } = decision;
    if (decision.report) {
      this.logger.warn(
        `${method}: ${requesterOf(call)} exceeds ${this.rateLimiter.operationsPerMinute} task operations per minute: ` +
          `refused with 429 (${decision.refusedSinceReport} refused since the last warning)`,
      );
    }
    return failure(jsonRpcError(undefined, ServerErrorCode.TooManyRequests, `Too many task requests: retry after ${retryAfterSeconds} s`), 429, {
      'retry-after': String(retryAfterSeconds),
    });
  }
}

/** The requester as the log names it; a legacy session id is a credential of sorts, so never logged. */
function requesterOf({ principal, session }: MethodCall): string {
  if (principal.anonymous) return `an anonymous caller of tenant ${principal.tenant}${session === undefined ? '' : ' (legacy session)'}`;
  return `subject ${principal.subject} of tenant ${principal.tenant}${principal.clientId === undefined ? '' : ` (client ${principal.clientId})`}`;
}

function owned(call: MethodCall): { sessionId?: string } {
  return call.session === undefined ? {} : { sessionId: call.session.id };
}

/**
 * A task as the scheduler shows it, neutral: its input requests while it waits, its result or JSON-RPC
 * error once terminal (S-300: a failed task carries its error, even one the platform failed itself, its
 * worker dead, which has no outcome), what `tasks/get` answers and a status notification carries.
 */
export function neutralTask(state: { task: TaskView; outcome?: TaskState['outcome'] }): NeutralTask {
  const { task, outcome } = state;
  const fields: NeutralTask = {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.status === 'input_required' && task.inputRequests) return { ...fields, inputRequests: task.inputRequests };
  if (outcome === undefined) {
    return task.status === 'failed' ? { ...fields, error: { code: JsonRpcErrorCode.InternalError, message: failedWithoutOutcome(task) } } : fields;
  }
  if ('result' in outcome) return { ...fields, result: outcome.result };
  return { ...fields, error: wireErrorToJsonRpc(undefined, outcome.error).error };
}

/** What `tasks/result` answers for a terminal task (S-281, S-285). */
function taskResult(state: TaskState): MethodOutcome {
  const related = { [RELATED_TASK_META_KEY]: { taskId: state.task.taskId } };
  if (state.outcome === undefined) {
    // Terminal without an outcome: cancelled (S-283), or failed by the platform itself (S-287: its status message says why).
    if (state.task.status === 'failed') return failure(jsonRpcError(undefined, JsonRpcErrorCode.InternalError, failedWithoutOutcome(state.task), related));
    return failure(invalidParamsError(undefined, `Task ${state.task.taskId} was cancelled: it has no result`, related));
  }
  if ('error' in state.outcome) return failure(wireErrorToJsonRpc(undefined, state.outcome.error));
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
