import { type Client, CLIENT_CAPABILITIES_META_KEY, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { type CallToolResult, RELATED_TASK_META_KEY, TASKS_EXTENSION } from '@mcp-platform/protocol-mcp';
import { InputRequired } from '../tools/client-requests';
import { type ClientRequests, type ElicitParams, type ToolArguments, type ToolContext, ToolProtocolFailure } from '../tools/tool-context';
import type { CallRoute } from './upstream-call-routing';

/** One call of an upstream tool on the task path. */
export interface UpstreamTaskCall {
  client: Client;
  route: CallRoute;
  context: ToolContext;
  /** The tool's name at the upstream. */
  name: string;
  args: ToolArguments;
  /** How long one request to the upstream may go without an answer (or progress). */
  requestTimeoutMs: number;
  /** How long the upstream should keep a task it creates (the platform follows it no longer than the tool's timeout). */
  ttlMs: number;
}

/** A task the upstream created for a call, as its creation named it. */
export interface StartedTask {
  taskId: string;
  pollMs?: number;
}

/** What a `tasks/get` said, as far as the follower reads it. */
export interface TaskState {
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  pollMs?: number;
}

/** What to do after a task's state was read: it ended (`result`), poll again at once (`poll`), or after the interval (`wait`). */
export type TaskStep = { result: CallToolResult } | { next: 'poll' | 'wait' };

/**
 * The task vocabulary of one protocol era, as the follower ({@link UpstreamTasks}) uses it: the follower's
 * loop is the same for both; how a task is created, read, ended, answered and cancelled is the era's.
 */
export interface UpstreamTaskEra {
  /** `tools/call` asking for a task: the upstream's task, or its result when it made none. */
  start(call: UpstreamTaskCall): Promise<{ task: StartedTask } | { result: CallToolResult }>;
  /** `tasks/get`. */
  read(call: UpstreamTaskCall, taskId: string): Promise<TaskState>;
  /** What a task that is not `working` comes to: its result, its failure (thrown), or input given and another look. */
  settle(call: UpstreamTaskCall, taskId: string, state: TaskState): Promise<TaskStep>;
  /** `tasks/cancel` (outside any call: the platform task is gone, or was never created). */
  cancel(client: Client, taskId: string, timeoutMs: number): Promise<unknown>;
}

const LooseResultSchema = z.looseObject({});

/** The task a `CreateTaskResult` names, in both eras (the 2026-07-28 one as {@link UpstreamClient} hands it over). */
const CreatedTaskSchema = z.looseObject({ task: z.looseObject({ taskId: z.string().min(1), pollInterval: z.number().optional() }).optional() });

/**
 * The tasks the upstream's own answer made: a `CreateTaskResult`, or the plain result of a call the
 * upstream chose to run at once.
 */
function startedOf(answer: Record<string, unknown>): { task: StartedTask } | { result: CallToolResult } {
  if (answer['task'] === undefined) return { result: answer as CallToolResult };
  const parsed = CreatedTaskSchema.safeParse(answer);
  const task = parsed.success ? parsed.data.task : undefined;
  if (task === undefined) throw new ToolProtocolFailure('the upstream server created a task without a taskId');
  return { task: { taskId: task.taskId, ...(task.pollInterval === undefined ? {} : { pollMs: task.pollInterval }) } };
}

function startCall(call: UpstreamTaskCall, params: Record<string, unknown>): Promise<{ task: StartedTask } | { result: CallToolResult }> {
  const { client, route, context } = call;
  return route
    .within(client, () =>
      client.request({ method: 'tools/call', params: { name: call.name, arguments: call.args, ...params } }, LooseResultSchema, {
        signal: route.signal,
        timeout: call.requestTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => context.progress(progress.progress, progress.total, progress.message),
      }),
    )
    .then(startedOf);
}

function failedTask(detail: string | undefined): ToolProtocolFailure {
  return new ToolProtocolFailure(`the upstream server's task failed${detail ? ` with error ${detail.slice(0, 500)}` : ''}`);
}

const CANCELLED: TaskStep = { result: { content: [{ type: 'text', text: 'The upstream server cancelled the task.' }], isError: true } };

/** A 2026-07-28 `tasks/get` answer (SEP-2663 `DetailedTask`), as far as the platform reads it. */
const DetailedTaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  pollIntervalMs: z.number().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() })).optional(),
});
type DetailedTask = z.infer<typeof DetailedTaskSchema>;
type InputRequests = NonNullable<DetailedTask['inputRequests']>;

/**
 * A 2026-07-28 upstream that declares the tasks extension (SEP-2663): requests declare the extension;
 * `tasks/get` inlines the result, the error and the input requests (asked of the caller under the
 * upstream's keys, answered with `tasks/update`); the upstream decides which calls become tasks (S-296).
 */
export class ModernTaskEra implements UpstreamTaskEra {
  /** The `DetailedTask` of the last `tasks/get`, which `settle` reads (one era object per call). */
  private last: DetailedTask | undefined;
  private readonly answered = new Set<string>();

  start(call: UpstreamTaskCall): Promise<{ task: StartedTask } | { result: CallToolResult }> {
    return startCall(call, { _meta: taskMeta(call) });
  }

  async read(call: UpstreamTaskCall, taskId: string): Promise<TaskState> {
    this.last = await call.client.request({ method: 'tasks/get', params: { taskId, _meta: taskMeta(call) } }, DetailedTaskSchema, {
      signal: call.route.signal,
      timeout: call.requestTimeoutMs,
    });
    return { status: this.last.status, ...(this.last.pollIntervalMs === undefined ? {} : { pollMs: this.last.pollIntervalMs }) };
  }

  async settle(call: UpstreamTaskCall, taskId: string): Promise<TaskStep> {
    const task = this.last;
    if (task === undefined) throw new ToolProtocolFailure("the upstream server's task was not read");
    switch (task.status) {
      case 'completed':
        return { result: resultOf(task) };
      case 'failed':
        throw failedTask(task.error ? `${task.error.code}: ${task.error.message}` : undefined);
      case 'cancelled':
        return CANCELLED;
      default: {
        const asked = Object.entries(task.inputRequests ?? {}).filter(([key]) => !this.answered.has(key));
        if (asked.length === 0) return { next: 'wait' };
        await answer(call, taskId, Object.fromEntries(asked));
        for (const [key] of asked) this.answered.add(key);
        return { next: 'poll' };
      }
    }
  }

  cancel(client: Client, taskId: string, timeoutMs: number): Promise<unknown> {
    return client.request({ method: 'tasks/cancel', params: { taskId, _meta: extensionMeta({}) } }, LooseResultSchema, { timeout: timeoutMs });
  }
}

/** The request's `_meta`: the caller's (capabilities and log level) with the tasks extension declared. */
function taskMeta(call: UpstreamTaskCall): Record<string, unknown> {
  return extensionMeta(call.route.meta(call.client) ?? {});
}

/** `meta` with the tasks extension declared among the client capabilities it names. */
function extensionMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const capabilities = (meta[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined) ?? {};
  const extensions = (capabilities['extensions'] as Record<string, unknown> | undefined) ?? {};
  return { ...meta, [CLIENT_CAPABILITIES_META_KEY]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } };
}

/** A completed task's inlined result, as a tool result. */
function resultOf(task: DetailedTask): CallToolResult {
  if (task.result === undefined) throw new ToolProtocolFailure("the upstream server's task completed without a result");
  const { resultType: _complete, ...result } = task.result;
  return result as CallToolResult;
}

/**
 * Asks the caller what the upstream's task asks (under the upstream's input keys), and sends the answers
 * with `tasks/update`. A modern caller that has not answered yet ends this run with those requests
 * ({@link InputRequired}: the platform task turns `input_required`).
 */
async function answer(call: UpstreamTaskCall, taskId: string, requests: InputRequests): Promise<void> {
  const asked = Object.entries(requests).map(([key, request]) => askClient(call.context.client, key, request.method, request.params));
  const settled = await Promise.allSettled(asked);
  const refused =
    settled.find((outcome) => outcome.status === 'rejected' && outcome.reason instanceof InputRequired) ?? settled.find((o) => o.status === 'rejected');
  if (refused?.status === 'rejected') throw refused.reason;
  const inputResponses = Object.fromEntries(Object.keys(requests).map((key, index) => [key, (settled[index] as PromiseFulfilledResult<unknown>).value]));
  await call.client.request({ method: 'tasks/update', params: { taskId, inputResponses, _meta: taskMeta(call) } }, LooseResultSchema, {
    signal: call.route.signal,
    timeout: call.requestTimeoutMs,
  });
}

function askClient(client: ClientRequests, key: string, method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
  switch (method) {
    case 'elicitation/create':
      return client.elicit((params ?? {}) as ElicitParams, { inputKey: key });
    case 'sampling/createMessage':
      return client.createMessage((params ?? {}) as Parameters<ClientRequests['createMessage']>[0], { inputKey: key });
    case 'roots/list':
      return client.listRoots({ inputKey: key });
    default:
      return Promise.reject(new ToolProtocolFailure(`the upstream server's task asked for ${method.slice(0, 100)}, which the platform cannot ask its client`));
  }
}

/** A 2025-11-25 `tasks/get` answer (core `Task`), as far as the platform reads it. */
const CoreTaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});

/**
 * A 2025-11-25 upstream with core tasks (`capabilities.tasks.requests.tools.call`, the tool's
 * `execution.taskSupport`): `tools/call` with `params.task` answers a `CreateTaskResult`; `tasks/get`
 * reads the status; `tasks/result` the result, the upstream sending what its task asks (server-to-client
 * requests with related-task metadata) on that request's stream, which the call's route takes to the
 * caller like any request of a call.
 */
export class LegacyTaskEra implements UpstreamTaskEra {
  private statusMessage: string | undefined;

  start(call: UpstreamTaskCall): Promise<{ task: StartedTask } | { result: CallToolResult }> {
    return startCall(call, { task: { ttl: call.ttlMs } });
  }

  async read(call: UpstreamTaskCall, taskId: string): Promise<TaskState> {
    const task = await call.client.request({ method: 'tasks/get', params: { taskId } }, CoreTaskSchema, {
      signal: call.route.signal,
      timeout: call.requestTimeoutMs,
    });
    this.statusMessage = task.statusMessage;
    return { status: task.status, ...(task.pollInterval === undefined ? {} : { pollMs: task.pollInterval }) };
  }

  async settle(call: UpstreamTaskCall, taskId: string, state: TaskState): Promise<TaskStep> {
    if (state.status === 'cancelled') return CANCELLED;
    const { client, route } = call;
    // What the task asked a modern caller in an earlier run, answered now (or this run ends asking again).
    await route.answerParked(client, taskId);
    try {
      // Blocks until the task ends; meanwhile the upstream's requests of the task come on its stream (S-286 upstream).
      const result = await route.within(client, () =>
        client.request({ method: 'tasks/result', params: { taskId } }, LooseResultSchema, {
          signal: route.signal,
          timeout: call.requestTimeoutMs,
          resetTimeoutOnProgress: true,
        }),
      );
      return { result: withoutRelatedTask(result) as CallToolResult };
    } catch (error) {
      // A task waiting long (on its caller's answer, say) outlasts one request: look again.
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !route.signal.aborted) return { next: 'poll' };
      // tasks/result answers the error the call would have: the task failed.
      if (error instanceof ProtocolError && !route.signal.aborted) throw failedTask(`${error.code}: ${error.message}`);
      if (state.status === 'failed') throw failedTask(this.statusMessage);
      throw error;
    }
  }

  cancel(client: Client, taskId: string, timeoutMs: number): Promise<unknown> {
    return client.request({ method: 'tasks/cancel', params: { taskId } }, LooseResultSchema, { timeout: timeoutMs });
  }
}

/** A result without the upstream's related-task metadata: it names the upstream's task, not the platform's. */
function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result['_meta'] as Record<string, unknown> | undefined;
  if (meta?.[RELATED_TASK_META_KEY] === undefined) return result;
  const { [RELATED_TASK_META_KEY]: _upstreams, ...kept } = meta;
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length ? { ...rest, _meta: kept } : rest;
}

/**
 * Whether the upstream decides per call which of its tools run as tasks: a 2026-07-28 upstream that
 * declares the tasks extension (SEP-2663). That revision lists no `execution.taskSupport` (the server
 * decides, S-296), so the platform cannot tell its tools apart from the list: it asks the upstream at
 * each call offered as a task.
 */
export function upstreamDecidesTasks(client: Client): boolean {
  return client.getProtocolEra() === 'modern' && client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * The task vocabulary the upstream behind `client` offers for a tool whose catalog entry says
 * `taskSupport`, or `undefined` when a call of it cannot become the upstream's task: a 2026-07-28 upstream
 * declaring the tasks extension (it decides per call), or a 2025-11-25 upstream with task-augmented
 * `tools/call` for a tool that lists `execution.taskSupport` `optional` or `required`.
 */
export function upstreamTaskEra(client: Client, taskSupport: toolExecutor.TaskSupport): UpstreamTaskEra | undefined {
  if (client.getProtocolEra() === 'modern') return upstreamDecidesTasks(client) ? new ModernTaskEra() : undefined;
  const capabilities = client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
  if (taskSupport === 'forbidden' || capabilities?.tasks?.requests?.tools?.call === undefined) return undefined;
  return new LegacyTaskEra();
}
