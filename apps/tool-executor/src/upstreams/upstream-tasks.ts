import { type Client, CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { type CallToolResult, TASKS_EXTENSION } from '@mcp-platform/protocol-mcp';
import { InputRequired } from '../tools/client-requests';
import { type ClientRequests, type ElicitParams, RunsAsTask, type ToolArguments, type ToolContext, ToolProtocolFailure } from '../tools/tool-context';
import type { CallRoute } from './upstream-call-routing';
import { UPSTREAM_TASK_META } from './upstream-client';

/** The input response under which a platform task created for an upstream's task carries that task's id. */
export const UPSTREAM_TASK_KEY = 'mcp-platform/upstream-task';

/** How often the upstream's task is polled when it names no interval, and the bounds of what it may name. */
const POLL = { defaultMs: 500, minMs: 100, maxMs: 5_000 } as const;

/** How long the `tasks/cancel` sent when the platform task was cancelled may take. */
const CANCEL_TIMEOUT_MS = 5_000;

const LooseResultSchema = z.looseObject({});

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
 * Whether the upstream decides per call which of its tools run as tasks: a 2026-07-28 upstream that
 * declares the tasks extension (SEP-2663). That revision lists no `execution.taskSupport` (the server
 * decides, S-296), so the platform cannot tell its tools apart from the list: it asks the upstream at
 * each call offered as a task ({@link UpstreamTasks}).
 */
export function upstreamDecidesTasks(client: Client): boolean {
  return client.getProtocolEra() === 'modern' && client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
}

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
}

/**
 * Upstream tools inside platform tasks (issue 15 §4 "tasks"), for a 2026-07-28 upstream that declares the
 * tasks extension (SEP-2663): the upstream decides which of its calls become tasks (S-296), so a call a
 * modern caller offered as a task is sent with the extension declared: a plain result answers the caller
 * at once; a task the upstream created makes the call a platform task ({@link RunsAsTask}) carrying the
 * upstream task's id. The platform task's run (any executor replica, any number of times after
 * `input_required`) follows that upstream task: `tasks/get` at the upstream's `pollIntervalMs` (bounded),
 * its `inputRequests` asked of the caller through the call's client under the upstream's keys (a modern
 * caller answers with `tasks/update` to the platform task, whose next run finds the answers and passes
 * them on with the upstream's `tasks/update`), its inlined result or error as the run's ending. A
 * cancelled platform task cancels the upstream's (`tasks/cancel`). A task's run that carries no upstream
 * task (a legacy caller's task) calls the upstream with the extension declared and follows the task it
 * may create the same way.
 */
@Injectable()
export class UpstreamTasks {
  private readonly logger = new Logger(UpstreamTasks.name);

  async call(call: UpstreamTaskCall): Promise<CallToolResult> {
    const { client, route, context } = call;
    let taskId = carriedTaskId(context);
    let pollMs: number | undefined;
    if (taskId === undefined) {
      const answer = await route.within(client, () =>
        client.request({ method: 'tools/call', params: { name: call.name, arguments: call.args, _meta: taskMeta(route, client) } }, LooseResultSchema, {
          signal: route.signal,
          timeout: call.requestTimeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => context.progress(progress.progress, progress.total, progress.message),
        }),
      );
      const created = (answer['_meta'] as Record<string, unknown> | undefined)?.[UPSTREAM_TASK_META] as
        { taskId?: unknown; pollIntervalMs?: unknown } | undefined;
      if (created === undefined) return answer as CallToolResult;
      if (typeof created.taskId !== 'string') throw new ToolProtocolFailure('the upstream server created a task without a taskId');
      taskId = created.taskId;
      if (context.task?.mode === 'offer') throw new RunsAsTask({ [UPSTREAM_TASK_KEY]: { taskId } });
      pollMs = typeof created.pollIntervalMs === 'number' ? created.pollIntervalMs : undefined;
    }
    try {
      return await this.follow(call, taskId, pollMs);
    } catch (error) {
      if (stoppedForGood(context.signal)) this.cancel(call, taskId);
      throw error;
    }
  }

  /** Polls the upstream's task until it ends, answering what it asks meanwhile. */
  private async follow(call: UpstreamTaskCall, taskId: string, firstPollMs: number | undefined): Promise<CallToolResult> {
    const { client, route, context } = call;
    const answered = new Set<string>();
    let pollMs = firstPollMs;
    for (;;) {
      const task = await client.request({ method: 'tasks/get', params: { taskId, _meta: taskMeta(route, client) } }, DetailedTaskSchema, {
        signal: route.signal,
        timeout: call.requestTimeoutMs,
      });
      pollMs = task.pollIntervalMs ?? pollMs;
      switch (task.status) {
        case 'completed':
          return resultOf(task);
        case 'failed':
          throw new ToolProtocolFailure(
            `the upstream server's task failed${task.error ? ` with error ${task.error.code}: ${task.error.message.slice(0, 500)}` : ''}`,
          );
        case 'cancelled':
          return { content: [{ type: 'text', text: 'The upstream server cancelled the task.' }], isError: true };
        case 'input_required': {
          const asked = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
          if (asked.length > 0) {
            await this.answer(call, taskId, Object.fromEntries(asked));
            for (const [key] of asked) answered.add(key);
            continue;
          }
          break;
        }
        case 'working':
          break;
      }
      await context.clock.sleep(Math.min(POLL.maxMs, Math.max(POLL.minMs, pollMs ?? POLL.defaultMs)), route.signal);
    }
  }

  /**
   * Asks the caller what the upstream's task asks (under the upstream's input keys), and sends the answers
   * with `tasks/update`. A modern caller that has not answered yet ends this run with those requests
   * ({@link InputRequired}: the platform task turns `input_required`).
   */
  private async answer(call: UpstreamTaskCall, taskId: string, requests: InputRequests): Promise<void> {
    const asked = Object.entries(requests).map(([key, request]) => askClient(call.context.client, key, request.method, request.params));
    const settled = await Promise.allSettled(asked);
    const refused =
      settled.find((outcome) => outcome.status === 'rejected' && outcome.reason instanceof InputRequired) ?? settled.find((o) => o.status === 'rejected');
    if (refused?.status === 'rejected') throw refused.reason;
    const inputResponses = Object.fromEntries(Object.keys(requests).map((key, index) => [key, (settled[index] as PromiseFulfilledResult<unknown>).value]));
    await call.client.request({ method: 'tasks/update', params: { taskId, inputResponses, _meta: taskMeta(call.route, call.client) } }, LooseResultSchema, {
      signal: call.route.signal,
      timeout: call.requestTimeoutMs,
    });
  }

  /** The platform task was cancelled (or timed out): the upstream's task is cancelled too, without waiting for it. */
  private cancel(call: UpstreamTaskCall, taskId: string): void {
    void call.client
      .request({ method: 'tasks/cancel', params: { taskId, _meta: taskMeta(call.route, call.client) } }, LooseResultSchema, { timeout: CANCEL_TIMEOUT_MS })
      .catch((error: unknown) => this.logger.warn(`upstream task ${taskId} could not be cancelled: ${(error as Error)?.message ?? String(error)}`));
  }
}

/** The upstream task a platform task's run follows, as its creation carried it. */
function carriedTaskId(context: ToolContext): string | undefined {
  if (context.task?.mode !== 'run') return undefined;
  const carried = context.task.carried[UPSTREAM_TASK_KEY] as { taskId?: unknown } | undefined;
  return typeof carried?.taskId === 'string' ? carried.taskId : undefined;
}

/** The request's `_meta`: the caller's (capabilities and log level) with the tasks extension declared. */
function taskMeta(route: CallRoute, client: Client): Record<string, unknown> {
  const meta = route.meta(client) ?? {};
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

/** Whether the run stopped for good (cancelled, timed out), not to ask its caller or because the executor stops. */
function stoppedForGood(signal: AbortSignal): boolean {
  if (!signal.aborted || signal.reason instanceof InputRequired) return false;
  return (signal.reason as { kind?: unknown } | undefined)?.kind !== 'shutdown';
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
