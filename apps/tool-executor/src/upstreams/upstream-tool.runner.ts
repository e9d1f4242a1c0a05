import { ProtocolError, type Tool } from '@modelcontextprotocol/client';
import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, JsonRpcErrorCode, TASKS_EXTENSION } from '@mcp-platform/protocol-mcp';
import type { CatalogTool, UpstreamToolConfig } from '../catalog/catalog.types';
import { InputRequired } from '../tools/client-requests';
import {
  ClientCapabilityMissing,
  ClientRequestFailed,
  RunsAsTask,
  TaskRequired,
  type ToolArguments,
  type ToolContext,
  ToolProtocolFailure,
} from '../tools/tool-context';
import { UpstreamCallRouting } from './upstream-call-routing';
import { UpstreamConnections, UpstreamUnavailable } from './upstream-connections';
import { UpstreamSourceCache } from './upstream-source.cache';
import { upstreamTaskEra } from './upstream-task-eras';
import { UpstreamTasks } from './upstream-tasks';
import { UPSTREAM_OPTIONS, type UpstreamOptions } from './upstreams.constants';

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** The prefix of `_meta` keys the protocol reserves (the upstream's own `serverInfo`, its protocol version…). */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/** An upstream's result without the reserved `_meta` keys it set for itself: they speak of the upstream, not of this platform. */
function withoutReservedMeta(result: CallToolResult): CallToolResult {
  const meta = result._meta;
  if (meta === undefined) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META_PREFIX)));
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length ? { ...rest, _meta: kept } : rest;
}

/** Whether the upstream refused the call for want of the tasks extension: the tool requires tasks. */
function isTaskRequired(error: unknown): boolean {
  if (!(error instanceof ProtocolError) || error.code !== JsonRpcErrorCode.MissingRequiredClientCapability) return false;
  const required = (error.data as { requiredCapabilities?: { extensions?: Record<string, unknown> } } | undefined)?.requiredCapabilities;
  return required?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** What the platform's own side of a call threw (not the connection's): it must not count against the upstream's health. */
type PlatformSide<T> = { value: T } | { thrown: unknown };

const PLATFORM_ERRORS = [RunsAsTask, TaskRequired, ToolProtocolFailure, InputRequired, ClientCapabilityMissing, ClientRequestFailed];

async function platformSide<T>(work: () => Promise<T>): Promise<PlatformSide<T>> {
  try {
    return { value: await work() };
  } catch (error) {
    if (PLATFORM_ERRORS.some((kind) => error instanceof kind)) return { thrown: error };
    throw error;
  }
}

function unwrapPlatformSide<T>(outcome: PlatformSide<T>): T {
  if ('thrown' in outcome) throw outcome.thrown;
  return outcome.value;
}

/**
 * Runs tools of kind `upstream`: the call goes to the source's upstream under the upstream's own name,
 * with the approved definition (the SDK validates the answer against its output schema), the call's
 * signal (cancellation reaches the upstream as `notifications/cancelled`) and its progress relayed to
 * the caller; what the upstream asks or logs meanwhile reaches the caller in its own era
 * ({@link UpstreamCallRouting}). An upstream that cannot be used answers an error result with an error id (the details
 * are in the source's health and the log); a JSON-RPC error the upstream answered becomes an error
 * result naming it. A call offered as a task, or a task's run, goes the task path when the upstream
 * can make it its own task ({@link UpstreamTasks}); otherwise an offered call becomes a platform task (the tool's
 * task support says it may) whose run calls the upstream as any call.
 */
@Injectable()
export class UpstreamToolRunner {
  constructor(
    @Inject(UPSTREAM_OPTIONS) private readonly options: UpstreamOptions,
    private readonly sources: UpstreamSourceCache,
    private readonly connections: UpstreamConnections,
    private readonly routing: UpstreamCallRouting,
    private readonly tasks: UpstreamTasks,
  ) {}

  async run(tool: CatalogTool, config: UpstreamToolConfig, args: ToolArguments, context: ToolContext): Promise<CallToolResult> {
    const source = await this.sources.get(tool.tenant, config.source);
    if (!source?.enabled) return errorResult(`Tool ${tool.name} is unavailable: its upstream server is ${source ? 'disabled' : 'gone'}.`);
    const definition = {
      name: config.tool,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    } as Tool;
    const route = this.routing.open(context);
    try {
      const calling = this.connections
        .use(
          source,
          (client) =>
            platformSide(() => {
              const era = context.task === undefined ? undefined : upstreamTaskEra(client, tool.taskSupport);
              if (era !== undefined) {
                const requestTimeoutMs = source.timeoutMs ?? this.options.callTimeoutMs;
                return this.tasks.call({ client, route, context, name: config.tool, args, requestTimeoutMs, ttlMs: tool.timeoutMs }, era);
              }
              // An upstream without tasks for this tool: the platform decides, by the tool's task support (as for built-ins).
              if (context.task?.mode === 'offer') throw new RunsAsTask();
              return route.within(client, () => {
                const meta = route.meta(client);
                return client.callTool(
                  { name: config.tool, arguments: args, ...(meta ? { _meta: meta } : {}) },
                  {
                    signal: route.signal,
                    timeout: source.timeoutMs ?? this.options.callTimeoutMs,
                    resetTimeoutOnProgress: true,
                    maxTotalTimeout: tool.timeoutMs,
                    toolDefinition: definition,
                    onprogress: (progress) => context.progress(progress.progress, progress.total, progress.message),
                  },
                );
              });
            }),
          route.signal,
        )
        .then(unwrapPlatformSide);
      const result = await Promise.race([calling, route.stopped]);
      return withoutReservedMeta(result as CallToolResult);
    } catch (error) {
      // The caller stopped the call, or must answer what the upstream asked before it is made again.
      if (context.signal.aborted) throw error;
      if (route.signal.reason instanceof InputRequired) throw route.signal.reason;
      if (error instanceof UpstreamUnavailable) return errorResult(error.message);
      // A 2026-07-28 upstream refusing a plain call of a tool that requires tasks: as a built-in tool would (S-295).
      if (isTaskRequired(error)) throw new TaskRequired();
      if (error instanceof ProtocolError) return errorResult(`The upstream server answered error ${error.code}: ${error.message.slice(0, 500)}`);
      throw error;
    } finally {
      route.close();
    }
  }
}
