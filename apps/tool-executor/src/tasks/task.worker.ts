import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type EventPayload, type RpcRequest, type RpcResponse, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { eraOfVersion } from '@mcp-platform/protocol-mcp';
import { Clock, IdSource } from '@mcp-platform/shared-clock';
import { type Job, type JobOutcome, MessageBus, RpcError, toWireError, type Worker, WorkQueue } from '@mcp-platform/shared-messaging';
import type { TaskWorkerOptions } from '../tool-executor.options';
import { CallsService } from '../tools/calls.service';
import { TaskOutput } from './task-output';
import { TaskProgress } from './task-progress';
import { CLAIM_FAILED_RETRY_AFTER_MS, FINISH_FAILED_RETRY_AFTER_MS, SCHEDULER_RETRY_PAUSES_MS, TASK_WORKER_OPTIONS, taskCallId } from './tasks.constants';

type Claim = RpcResponse<typeof taskScheduler.claimTask>;
type RunClaim = Extract<Claim, { action: 'run' }>;
/** How a task's run ended, as `finishTask` takes it. */
export type TaskEnding = RpcRequest<typeof taskScheduler.finishTask>['ending'];

/** One job this replica handles: whether its task was cancelled meanwhile, its run's call id and (legacy) output. */
interface Handling {
  cancelled: boolean;
  callId?: string;
  output?: TaskOutput;
}

/** Errors after which a request to the scheduler is tried again: it may not have heard it, or failed on its side. */
const TRANSIENT_ERRORS: readonly string[] = [WireErrorCode.Timeout, WireErrorCode.Unavailable, WireErrorCode.Internal];

/**
 * Runs MCP tasks' tool calls: works the `tool-tasks` queue the task scheduler fills. For each job it asks
 * the scheduler whether to run (`claimTask`), runs the call through {@link CallsService} like any call
 * (`taskMode: 'task'`, so a tool requiring tasks runs, S-197), and reports how it ended (`finishTask`):
 * the result, the error, or (modern era) the input requests the scheduler turns into `input_required`
 * (S-300). A legacy task's run reaches the session that created it through a {@link TaskOutput}: its
 * progress and logs, and its requests, on that session's `tasks/result` streams (S-286); a modern task's
 * run sends nothing but its input requests (S-304: no progress or logs for tasks). In both eras the tool's
 * progress becomes the task's status message ({@link TaskProgress}). Delivery is at least
 * once; the scheduler's claim decides whether a job delivered again runs again.
 */
@Injectable()
export class TaskWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TaskWorker.name);
  private worker: Worker | undefined;
  /** The tasks whose jobs this replica handles now. */
  private readonly handling = new Map<string, Handling>();

  constructor(
    private readonly workQueue: WorkQueue,
    private readonly bus: MessageBus,
    private readonly calls: CallsService,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    @Inject(TASK_WORKER_OPTIONS) private readonly options: TaskWorkerOptions,
  ) {}

  /** Starts taking jobs once the catalog snapshot is loaded (the catalog's module boots first), so no run meets an empty catalog. */
  onApplicationBootstrap(): void {
    this.worker = this.workQueue.work(taskScheduler.TOOL_TASKS_QUEUE, (job) => this.handle(job), this.options);
  }

  /** Stops taking jobs; runs still going keep their jobs until they end (or, over NATS, the process dies and they come back). */
  async onModuleDestroy(): Promise<void> {
    await this.worker?.stop();
  }

  /** One job of the queue (its data is the task id): claim, run, finish. */
  async handle(job: Job): Promise<JobOutcome> {
    const taskId = job.data;
    if (!taskScheduler.TaskIdSchema.safeParse(taskId).success) {
      this.logger.warn(`dropped job ${job.id} of ${taskScheduler.TOOL_TASKS_QUEUE}: its data is not a task id`);
      return 'done';
    }
    const handling: Handling = { cancelled: false };
    this.handling.set(taskId, handling);
    try {
      const claim = await this.claim(taskId, job.attempt, randomBytes(12).toString('base64url'));
      if (!claim) return { retryAfterMs: CLAIM_FAILED_RETRY_AFTER_MS };
      if (claim.action === 'skip') return 'done';
      if (claim.action === 'retry') return { retryAfterMs: claim.afterMs };
      const ending = await this.run(taskId, claim, handling);
      return (await this.finish(taskId, ending)) ? 'done' : { retryAfterMs: FINISH_FAILED_RETRY_AFTER_MS };
    } finally {
      // A later job of the same task (after input_required) may have taken the entry over.
      if (this.handling.get(taskId) === handling) this.handling.delete(taskId);
    }
  }

  /**
   * A task's status changed (any replica of the scheduler says so): the run of a cancelled task stops here
   * (S-283: try to stop it; the scheduler keeps the task `cancelled` whatever the run's ending).
   */
  statusChanged(payload: EventPayload<typeof taskScheduler.taskStatusChanged>): void {
    if (payload.task.status !== 'cancelled') return;
    const handling = this.handling.get(payload.task.taskId);
    if (!handling) return;
    handling.cancelled = true;
    if (handling.callId !== undefined) this.calls.cancel(handling.callId, 'task cancelled');
  }

  /**
   * Its owner opened a `tasks/result` stream for a task this replica runs (in any session): the requests its
   * run waits on go out again, and that session's answers count (S-286).
   */
  resultAwaited(payload: EventPayload<typeof toolExecutor.taskResultAwaited>): void {
    this.handling.get(payload.taskId)?.output?.awaitedBy(payload.sessionId);
  }

  /**
   * The scheduler's answer to the claim, or `undefined` when it could not be asked. While it cannot be
   * reached the claim is asked again with the same token: one the scheduler recorded but whose answer was
   * lost gets the same answer, instead of counting as a run cut short.
   */
  private async claim(taskId: string, attempt: number, claimToken: string): Promise<Claim | undefined> {
    try {
      return await this.askScheduler(taskId, 'claiming it', () =>
        this.bus.request(taskScheduler.claimTask, { taskId, attempt, maxAttempts: this.options.maxAttempts, claimToken }),
      );
    } catch (error) {
      this.logger.warn(`task ${taskId}: claim failed (attempt ${attempt}), trying later: ${(error as Error)?.message ?? String(error)}`);
      return undefined;
    }
  }

  /** Runs the task's call as its owner; never throws. */
  private async run(taskId: string, claim: RunClaim, handling: Handling): Promise<TaskEnding> {
    const { call, sessionId } = claim;
    // Checked right before the call: from there on, a cancellation finds the call running.
    if (handling.cancelled) return { outcome: { error: new RpcError(WireErrorCode.Cancelled, 'Task cancelled').toWire() } };
    const callId = taskCallId(taskId, this.ids.newId());
    handling.callId = callId;
    // A legacy task reaches the session that created it; a modern one asks by input requests (S-300).
    const output = sessionId === undefined || eraOfVersion(call.protocolVersion) === 'modern' ? undefined : new TaskOutput(taskId, sessionId, this.bus);
    if (output) handling.output = output;
    const progress = new TaskProgress(taskId, this.bus);
    try {
      const answer = await this.calls.call(
        {
          tenant: call.tenant,
          server: call.server,
          callId,
          name: call.name,
          ...(call.arguments === undefined ? {} : { arguments: call.arguments }),
          protocolVersion: call.protocolVersion,
          ...(call.clientCapabilities === undefined ? {} : { clientCapabilities: call.clientCapabilities }),
          ...(output === undefined ? {} : { sessionId }),
          ...(claim.inputResponses === undefined ? {} : { inputResponses: claim.inputResponses }),
          taskMode: 'task',
          ...(call.upstreamTask === undefined ? {} : { upstreamTask: call.upstreamTask }),
        },
        claim.principal,
        undefined,
        {
          onProgress: (done, total, message) => progress.update(done, total, message),
          ...(output && {
            sink: output,
            notify: {
              ...(call.progressToken === undefined ? {} : { progressToken: call.progressToken }),
              ...(call.logLevel === undefined ? {} : { logLevel: call.logLevel }),
            },
          }),
        },
      );
      // A task's call (taskMode 'task') answers a result or input requests, never `runAsTask`.
      return toolExecutor.isCallInputRequired(answer) ? { inputRequests: answer.inputRequired.inputRequests } : { outcome: { result: answer } };
    } catch (error) {
      return { outcome: { error: toWireError(toolExecutor.callTool.subject, error) } };
    } finally {
      progress.stop();
    }
  }

  /** Reports the run's ending; whether it landed. An answer refusing it (say the task expired meanwhile) has landed too. */
  private async finish(taskId: string, ending: TaskEnding): Promise<boolean> {
    try {
      await this.askScheduler(taskId, "reporting the run's ending", () => this.bus.request(taskScheduler.finishTask, { taskId, ending }));
      return true;
    } catch (error) {
      if (!isTransient(error)) {
        this.logger.warn(`task ${taskId}: the scheduler refused the run's ending: ${(error as RpcError).code} ${(error as Error).message}`);
        return true;
      }
      this.logger.error(`task ${taskId}: the run's ending never reached the scheduler; the job comes back`);
      return false;
    }
  }

  /** One request to the scheduler, tried again while it cannot be reached (six tries over about 30 s); rejects with the last error. */
  private async askScheduler<T>(taskId: string, what: string, send: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        const pause = SCHEDULER_RETRY_PAUSES_MS[attempt];
        if (!isTransient(error) || pause === undefined) throw error;
        this.logger.warn(`task ${taskId}: ${what} failed (try ${attempt + 1}): ${(error as Error)?.message ?? String(error)}`);
        await this.clock.sleep(pause);
      }
    }
  }
}

/** Whether the scheduler may not have heard the request, or failed on its side: worth asking again. */
function isTransient(error: unknown): boolean {
  return !(error instanceof RpcError) || TRANSIENT_ERRORS.includes(error.code);
}
