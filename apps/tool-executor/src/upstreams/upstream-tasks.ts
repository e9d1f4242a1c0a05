import { Injectable, Logger } from '@nestjs/common';
import type { EventPayload, toolExecutor } from '@mcp-platform/protocol-contracts';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import { CatalogService } from '../catalog/catalog.service';
import { InputRequired } from '../tools/client-requests';
import { RunsAsTask } from '../tools/tool-context';
import { UpstreamConnections } from './upstream-connections';
import { UpstreamSourceCache } from './upstream-source.cache';
import { type UpstreamTaskCall, type UpstreamTaskEra, upstreamTaskEra } from './upstream-task-eras';

/** How often the upstream's task is polled when it names no interval, and the bounds of what it may name. */
const POLL = { defaultMs: 500, minMs: 100, maxMs: 5_000 } as const;

/** How long the `tasks/cancel` sent when the platform task was cancelled may take. */
const CANCEL_TIMEOUT_MS = 5_000;

/**
 * Upstream tools inside platform tasks (issue 15 §4 "tasks"), for an upstream whose calls can become its
 * own tasks: a 2026-07-28 upstream that declares the tasks extension (SEP-2663; it decides which calls
 * become tasks, S-296), or a 2025-11-25 upstream with core tasks for a tool that allows them. A call
 * offered as a task asks the upstream for one ({@link UpstreamTaskEra.start}): a plain result answers the
 * caller at once; a task the upstream created makes the call a platform task ({@link RunsAsTask})
 * carrying the upstream task's id (`upstreamTask` in the contracts). The platform task's run (any
 * executor replica, any number of times after `input_required`) follows that upstream task: `tasks/get`
 * at the upstream's poll interval (bounded), what the task asks passed to the caller in the caller's era,
 * its result or error as the run's ending ({@link UpstreamTaskEra.settle}). A cancelled platform task
 * cancels the upstream's (`tasks/cancel`). A task's run that carries no upstream task (a legacy caller's
 * task, created before any call) asks for one the same way and follows what it gets.
 */
@Injectable()
export class UpstreamTasks {
  private readonly logger = new Logger(UpstreamTasks.name);

  constructor(
    private readonly catalog: CatalogService,
    private readonly sources: UpstreamSourceCache,
    private readonly connections: UpstreamConnections,
  ) {}

  async call(call: UpstreamTaskCall, era: UpstreamTaskEra): Promise<CallToolResult> {
    const { context } = call;
    let taskId = context.task?.mode === 'run' ? context.task.upstreamTask?.taskId : undefined;
    let pollMs: number | undefined;
    if (taskId === undefined) {
      const started = await era.start(call);
      if ('result' in started) return started.result;
      taskId = started.task.taskId;
      if (context.task?.mode === 'offer') throw new RunsAsTask({ taskId });
      pollMs = started.task.pollMs;
    }
    try {
      return await this.follow(call, era, taskId, pollMs);
    } catch (error) {
      if (stoppedForGood(context.signal)) this.cancel(call, era, taskId);
      throw error;
    }
  }

  /**
   * The upstream created a task for an offered call and no platform task follows it (its creation failed,
   * `upstreamTaskAbandoned`): it is cancelled, best effort and logged, rather than left running unseen.
   */
  async abandoned(event: EventPayload<typeof toolExecutor.upstreamTaskAbandoned>): Promise<void> {
    const { taskId } = event.upstreamTask;
    const what = `upstream task ${taskId} of ${event.tenant}/${event.server}/${event.name}`;
    const tool = this.catalog.getServer(event.tenant, event.server)?.byName.get(event.name);
    const source = tool?.runner.kind === 'upstream' ? await this.sources.get(event.tenant, tool.runner.config.source) : undefined;
    if (tool === undefined || !source?.enabled) {
      this.logger.warn(`${what} has no platform task, and its upstream server is gone: it is left to its TTL`);
      return;
    }
    try {
      await this.connections.use(source, async (client) => {
        const era = upstreamTaskEra(client, tool.record.taskSupport);
        if (era === undefined) throw new Error('the upstream server no longer offers tasks');
        await era.cancel(client, taskId, CANCEL_TIMEOUT_MS);
      });
      this.logger.warn(`${what} had no platform task (${event.reason ?? 'its creation failed'}): cancelled`);
    } catch (error) {
      this.logger.warn(`${what} has no platform task and could not be cancelled: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /** Polls the upstream's task until it ends, answering what it asks meanwhile. */
  private async follow(call: UpstreamTaskCall, era: UpstreamTaskEra, taskId: string, firstPollMs: number | undefined): Promise<CallToolResult> {
    let pollMs = firstPollMs;
    for (;;) {
      const state = await era.read(call, taskId);
      pollMs = state.pollMs ?? pollMs;
      const step = state.status === 'working' ? ({ next: 'wait' } as const) : await era.settle(call, taskId, state);
      if ('result' in step) return step.result;
      if (step.next === 'wait') await call.context.clock.sleep(pollDelay(pollMs), call.route.signal);
    }
  }

  /** The platform task was cancelled (or timed out): the upstream's task is cancelled too, without waiting for it. */
  private cancel(call: UpstreamTaskCall, era: UpstreamTaskEra, taskId: string): void {
    void era
      .cancel(call.client, taskId, CANCEL_TIMEOUT_MS)
      .catch((error: unknown) => this.logger.warn(`upstream task ${taskId} could not be cancelled: ${(error as Error)?.message ?? String(error)}`));
  }
}

/** The wait before the next `tasks/get`: the upstream's interval, within the platform's bounds. */
export function pollDelay(pollMs: number | undefined): number {
  return Math.min(POLL.maxMs, Math.max(POLL.minMs, pollMs ?? POLL.defaultMs));
}

/** Whether the run stopped for good (cancelled, timed out), not to ask its caller or because the executor stops. */
function stoppedForGood(signal: AbortSignal): boolean {
  if (!signal.aborted || signal.reason instanceof InputRequired) return false;
  return (signal.reason as { kind?: unknown } | undefined)?.kind !== 'shutdown';
}
