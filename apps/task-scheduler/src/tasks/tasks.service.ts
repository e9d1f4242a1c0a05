import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type Principal, type RpcRequestParsed, type RpcResponse, taskScheduler, toolExecutor } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { MessageBus, RpcError, WireErrorCode, WorkQueue } from '@mcp-platform/shared-messaging';
import type { StoredTask, TaskOwner } from '../store/stored-task';
import { TasksRepository } from '../store/tasks.repository';
import { AWAIT_RECHECK_MS, TASK_PAGE_SIZE, TASK_SWEEP_INTERVAL_MS } from '../task-scheduler.constants';
import { decodeTaskCursor, encodeTaskCursor } from './task-cursor';
import {
  boundTtlMs,
  concurrencyRetryAfterMs,
  decideClaim,
  isExpired,
  isOwnedBy,
  isRunning,
  outstandingAnswers,
  ownerOf,
  ownerViewOf,
  statusOfOutcome,
  stillPending,
  toAdminTaskView,
  toTaskView,
} from './task-rules';
import { TASK_SETTINGS, type TaskSettings } from './task-settings';
import { TaskWaiters } from './task-waiters';

type TaskState = taskScheduler.TaskState;
type TaskView = taskScheduler.TaskView;
type AdminTaskView = taskScheduler.AdminTaskView;
type CreateRequest = RpcRequestParsed<typeof taskScheduler.createTask>;
type FinishEnding = RpcRequestParsed<typeof taskScheduler.finishTask>['ending'];
type ClaimAnswer = RpcResponse<typeof taskScheduler.claimTask>;

/** What a locked step answers, and the task to announce once its transaction committed. */
interface Locked<T> {
  answer: T;
  changed?: StoredTask;
}

/**
 * MCP tasks of both eras (S-272..S-307): created for a tool call and queued for the tool executors,
 * read, awaited, listed, cancelled and answered by their owner (anyone else is told the task does not
 * exist, S-289), listed and cancelled by the tenant's administrators (through the admin API), claimed
 * and finished by the executors' workers. Every status change is written under the task's row lock
 * before it is answered or announced (`taskStatusChanged`), so a cancellation is never overwritten by a
 * finish (S-283). Expired tasks are unknown at once and deleted by a sweep.
 */
@Injectable()
export class TasksService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TasksService.name);
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly tasks: TasksRepository,
    private readonly bus: MessageBus,
    private readonly workQueue: WorkQueue,
    private readonly waiters: TaskWaiters,
    private readonly clock: Clock,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweepQuietly();
    if (this.settings.requeueOnBoot) await this.requeueWorking();
    this.sweeper = setInterval(() => void this.sweepQuietly(), TASK_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    this.closing = true;
    clearInterval(this.sweeper);
  }

  /**
   * Creates a `working` task for the call and queues its run; answers once both are stored (S-298). The
   * tool executor, asked with the caller's principal, says whether the tool allows tasks and whether it
   * is idempotent; its refusals (unknown tool, forbidden) pass through as they are.
   */
  async create(request: CreateRequest, principal: Principal | undefined): Promise<TaskView> {
    const caller = requirePrincipal(principal);
    const { call } = request;
    if (caller.tenant !== call.tenant) throw new RpcError(WireErrorCode.Forbidden, `Principal of tenant ${caller.tenant} may not use tenant ${call.tenant}`);
    const tool = await this.bus.request(
      toolExecutor.describeToolCall,
      { tenant: call.tenant, server: call.server, name: call.name },
      { context: { principal: caller } },
    );
    if (tool.taskSupport === 'forbidden') throw new RpcError(WireErrorCode.Unsupported, `Tool ${call.name} does not support tasks`);

    const now = this.clock.now();
    const ttlMs = boundTtlMs(request.requestedTtlMs, this.settings);
    const owner = ownerOf(caller, request.sessionId);
    const task: StoredTask = {
      // spec S-290, S-306: 128 random bits, unguessable; so node:crypto here, not the injected IdSource
      // (an IdSource promises new ids, not unguessable ones: tests bind a sequential one).
      id: randomBytes(16).toString('base64url'),
      tenant: call.tenant,
      server: call.server,
      owner,
      originSessionId: request.sessionId ?? null,
      principal: caller,
      era: request.era,
      call,
      idempotent: tool.idempotent,
      status: 'working',
      statusMessage: null,
      createdAt: new Date(now),
      lastUpdatedAt: new Date(now),
      ttlMs,
      expiresAt: new Date(now + ttlMs),
      pollIntervalMs: this.settings.pollIntervalMs,
      outcome: null,
      inputRequests: null,
      // Issue 14 §2.4: what the call gathered before the task existed; the first run reads them.
      inputResponses: request.inputResponses ?? {},
      runOpen: false,
      runsStarted: 0,
      attemptsSeen: 0,
      runToken: null,
    };
    await this.tasks.insert(task);
    try {
      await this.workQueue.enqueue(taskScheduler.TOOL_TASKS_QUEUE, { id: task.id, data: task.id });
    } catch (error) {
      // Nothing acknowledged is lost, nothing unacknowledged lingers: no job, no task.
      await this.tasks.delete(task.id);
      this.logger.warn(`task ${task.id}: queueing its run failed: ${(error as Error).message}`);
      throw new RpcError(WireErrorCode.Unavailable, 'The task could not be queued; try again');
    }
    this.logger.log(`${audit('created', task)} tool=${call.server}/${call.name} era=${task.era} ttlMs=${ttlMs}`);
    return toTaskView(task);
  }

  /** The caller's task with its outcome once it has one; anyone else's, or an expired one, is unknown. */
  async get(taskId: string, principal: Principal | undefined, sessionId: string | undefined): Promise<TaskState> {
    return stateOf(await this.findOwned(taskId, principal, sessionId));
  }

  /**
   * Like `get`, once the task is terminal or `waitMs` has passed (legacy `tasks/result` blocks, S-281).
   * Woken by this replica's changes and other replicas' events, and re-reads every `AWAIT_RECHECK_MS`.
   */
  async await(taskId: string, waitMs: number, principal: Principal | undefined, sessionId: string | undefined): Promise<TaskState> {
    const until = Date.now() + waitMs;
    for (;;) {
      const remaining = until - Date.now();
      const wait = this.waiters.waitFor(taskId, Math.max(0, Math.min(remaining, AWAIT_RECHECK_MS)));
      let state: TaskState;
      try {
        state = await this.get(taskId, principal, sessionId);
      } catch (error) {
        wait.cancel();
        throw error;
      }
      if (taskScheduler.isTerminalTaskStatus(state.task.status) || remaining <= 0 || this.closing) {
        wait.cancel();
        return state;
      }
      await wait.woken;
    }
  }

  /** The caller's tasks of `tenant`, newest first, `TASK_PAGE_SIZE` at a time (S-282). */
  async list(tenant: string, cursor: string | undefined, principal: Principal | undefined, sessionId: string | undefined) {
    const caller = requirePrincipal(principal);
    if (caller.tenant !== tenant) throw new RpcError(WireErrorCode.Forbidden, `Principal of tenant ${caller.tenant} may not use tenant ${tenant}`);
    const owner = ownerOf(caller, sessionId);
    // spec S-290: without a session, anonymous callers share one identity; listing would show everyone's tasks.
    if (owner.anonymous && owner.sessionId === null) throw new RpcError(WireErrorCode.Forbidden, 'Anonymous callers list tasks only within a session');
    const after = cursor === undefined ? undefined : decodeTaskCursor(cursor);
    return pageOf(await this.tasks.listOwned(owner, new Date(this.clock.now()), after, TASK_PAGE_SIZE + 1), toTaskView);
  }

  /** Cancels the caller's task: `cancelled` is stored before the answer (S-283); a terminal task is `INVALID_PARAMS`. */
  async cancel(taskId: string, principal: Principal | undefined, sessionId: string | undefined): Promise<TaskView> {
    const owner = ownerOf(requirePrincipal(principal), sessionId);
    const cancelled = await this.cancelVisible(taskId, (task) => this.ownedOrUnknown(task, owner), 'The task was cancelled by its requester', '');
    return toTaskView(cancelled);
  }

  /**
   * Every owner's unexpired tasks of `tenant` (only those in `status`, if given), newest first,
   * `TASK_PAGE_SIZE` at a time, for its administrators; the admin API checked who asks.
   */
  async listForTenant(
    tenant: string,
    status: taskScheduler.TaskStatus | undefined,
    cursor: string | undefined,
  ): Promise<{ tasks: AdminTaskView[]; nextCursor?: string }> {
    const after = cursor === undefined ? undefined : decodeTaskCursor(cursor);
    return pageOf(await this.tasks.listOfTenant(tenant, status, new Date(this.clock.now()), after, TASK_PAGE_SIZE + 1), toAdminTaskView);
  }

  /**
   * An administrator cancels a task of `tenant`, by the owner's rules (S-283): `cancelled` before the
   * answer, announced so its run stops; a terminal task is `INVALID_PARAMS`, a task of another tenant
   * is unknown. The audit line names the administrator.
   */
  async cancelForTenant(tenant: string, taskId: string, actor: { subject: string }): Promise<AdminTaskView> {
    const cancelled = await this.cancelVisible(
      taskId,
      (task) => this.inTenantOrUnknown(task, tenant),
      'The task was cancelled by an administrator',
      ` by-admin=${JSON.stringify(actor.subject)}`,
    );
    return toAdminTaskView(cancelled);
  }

  /**
   * The tenant was deleted: its tasks go with it, so a tenant created later with the same slug sees none
   * of them. Those not finished are announced `cancelled` first (their runs stop, their owners hear it).
   */
  async deleteForTenant(tenant: string): Promise<{ deleted: number }> {
    const { deleted, unfinished } = await this.tasks.deleteTenant(tenant);
    const now = new Date(this.clock.now());
    for (const task of unfinished) {
      this.announce({ ...task, status: 'cancelled', statusMessage: 'The task was cancelled: its tenant was deleted', inputRequests: null, lastUpdatedAt: now });
    }
    if (deleted > 0) this.logger.log(`deleted ${deleted} task(s) of deleted tenant ${tenant} (${unfinished.length} unfinished, cancelled)`);
    return { deleted };
  }

  /**
   * Modern era: the client's answers (S-301). Only answers to the keys the task asks now count; when
   * some do, they join the earlier answers; once every request has its answer the task is `working` again
   * and a new job runs it, before that it stays `input_required` asking only the rest (SEP-2663 partial
   * fulfillment). Anything else (no such key, a task not waiting for input) is acknowledged without effect.
   */
  async update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    principal: Principal | undefined,
    sessionId: string | undefined,
  ): Promise<Record<string, never>> {
    const owner = ownerOf(requirePrincipal(principal), sessionId);
    const { changed } = await this.tasks.lockTask(taskId, async (locked): Promise<Locked<undefined>> => {
      if (!locked) throw unknownTask();
      const task = this.ownedOrUnknown(locked.task, owner);
      if (task.status !== 'input_required') return { answer: undefined };
      const answered = outstandingAnswers(task.inputRequests, inputResponses);
      if (Object.keys(answered).length === 0) return { answer: undefined };
      const pending = stillPending(task.inputRequests, answered);
      if (pending) {
        // SEP-2663 partial fulfillment: the task waits, asking only what is left; the answers are kept.
        const waiting = await locked.update({
          inputRequests: pending,
          inputResponses: { ...task.inputResponses, ...answered },
          lastUpdatedAt: new Date(this.clock.now()),
        });
        return { answer: undefined, changed: waiting };
      }
      const resumed = await locked.update({
        status: 'working',
        statusMessage: null,
        inputRequests: null,
        inputResponses: { ...task.inputResponses, ...answered },
        attemptsSeen: 0,
        lastUpdatedAt: new Date(this.clock.now()),
      });
      // Inside the transaction: a failed enqueue rolls the answers back, and the client may send them again.
      await this.enqueueRun(task.id);
      return { answer: undefined, changed: resumed };
    });
    if (changed) this.announce(changed);
    return {};
  }

  /**
   * A worker took the task's job: run it (with the call, the owner's principal and the answers so far),
   * skip it, or retry later while the tenant has `tenantConcurrency` runs in progress (S-291).
   */
  async claim(taskId: string, attempt: number, maxAttempts: number, claimToken: string): Promise<ClaimAnswer> {
    const now = this.clock.now();
    const { answer, changed } = await this.tasks.lockTask(taskId, async (locked): Promise<Locked<ClaimAnswer>> => {
      const decision = decideClaim(locked?.task, now, attempt, maxAttempts, claimToken);
      if (!locked || decision.kind === 'skip') return { answer: { action: 'skip' } };
      // The worker lost this very claim's answer (the scheduler stopped, the reply was dropped): the same answer again.
      if (decision.kind === 'run' && decision.again) return { answer: runAnswer(locked.task) };
      const attemptsSeen = Math.max(locked.task.attemptsSeen, attempt);
      if (decision.kind === 'fail') {
        const failed = await locked.update({
          status: 'failed',
          statusMessage: decision.statusMessage,
          runOpen: false,
          attemptsSeen,
          lastUpdatedAt: new Date(now),
        });
        return { answer: { action: 'skip' }, changed: failed };
      }
      await locked.lockTenantClaims();
      if ((await locked.otherOpenRuns(new Date(now))) >= this.settings.tenantConcurrency) {
        await locked.update({ attemptsSeen });
        return { answer: { action: 'retry', afterMs: concurrencyRetryAfterMs(attempt) } };
      }
      // A legacy run that died waiting for its client starts over: `working` again until it asks again.
      const restarted = locked.task.status === 'input_required';
      const task = await locked.update({
        runOpen: true,
        runsStarted: locked.task.runsStarted + 1,
        runToken: claimToken,
        attemptsSeen,
        ...(restarted ? { status: 'working' as const, statusMessage: null, lastUpdatedAt: new Date(now) } : {}),
      });
      return { answer: runAnswer(task), ...(restarted ? { changed: task } : {}) };
    });
    if (changed) {
      this.announce(changed);
      if (changed.status === 'failed') this.logger.log(`${audit('failed', changed)} reason=${JSON.stringify(changed.statusMessage)}`);
    }
    return answer;
  }

  /**
   * Legacy era: the task's run waits for its client to answer a request (`input_required`, S-286), or
   * got its answers (`working` again). Only a task whose run is under way changes; a cancelled or
   * finished one keeps its status (S-278).
   */
  async reportInput(taskId: string, waiting: boolean): Promise<Record<string, never>> {
    const { changed } = await this.tasks.lockTask(taskId, async (locked): Promise<Locked<undefined>> => {
      if (!locked || !locked.task.runOpen || !isRunning(locked.task)) return { answer: undefined };
      const status = waiting ? 'input_required' : 'working';
      if (locked.task.status === status) return { answer: undefined };
      const updated = await locked.update({
        status,
        statusMessage: waiting ? 'The task is waiting for its client to answer a request' : null,
        lastUpdatedAt: new Date(this.clock.now()),
      });
      return { answer: undefined, changed: updated };
    });
    if (changed) this.announce(changed);
    return {};
  }

  /**
   * The run's latest progress, in words, as the status message of a `working` task (what a client polling
   * `tasks/get` reads). Not a status change: nothing is announced. Anything else is ignored.
   */
  async reportProgress(taskId: string, statusMessage: string): Promise<Record<string, never>> {
    await this.tasks.lockTask(taskId, async (locked): Promise<Locked<undefined>> => {
      if (locked?.task.runOpen && locked.task.status === 'working') await locked.update({ statusMessage, lastUpdatedAt: new Date(this.clock.now()) });
      return { answer: undefined };
    });
    return {};
  }

  /**
   * A worker's run ended. A task no longer running (cancelled meanwhile, S-283) keeps its status and the
   * outcome is dropped. Input requests make it `input_required` (modern era); an outcome makes it
   * `completed` or `failed` by the era's rules (S-287, S-303).
   */
  async finish(taskId: string, ending: FinishEnding): Promise<Record<string, never>> {
    const now = new Date(this.clock.now());
    const { changed } = await this.tasks.lockTask(taskId, async (locked): Promise<Locked<undefined>> => {
      if (!locked) return { answer: undefined };
      const task = locked.task;
      if (!isRunning(task)) {
        if (task.runOpen) await locked.update({ runOpen: false });
        return { answer: undefined };
      }
      if ('inputRequests' in ending) {
        const waiting = await locked.update({
          status: 'input_required',
          statusMessage: 'The task needs input',
          inputRequests: ending.inputRequests,
          runOpen: false,
          lastUpdatedAt: now,
        });
        return { answer: undefined, changed: waiting };
      }
      const { status, statusMessage } = statusOfOutcome(task.era, ending.outcome);
      const finished = await locked.update({ status, statusMessage, outcome: ending.outcome, inputRequests: null, runOpen: false, lastUpdatedAt: now });
      return { answer: undefined, changed: finished };
    });
    if (changed) {
      this.announce(changed);
      if (taskScheduler.isTerminalTaskStatus(changed.status)) this.logger.log(audit(changed.status, changed));
    }
    return {};
  }

  /** Another replica changed a task: wake this replica's waiters. */
  taskChangedElsewhere(taskId: string): void {
    this.waiters.wake(taskId);
  }

  /** Deletes the expired tasks (S-279, S-291: prompt cleanup); how many. */
  async sweepExpired(): Promise<number> {
    const deleted = await this.tasks.deleteExpired(new Date(this.clock.now()));
    if (deleted > 0) this.logger.log(`deleted ${deleted} expired task(s)`);
    return deleted;
  }

  /** Queues a new run of every `working` task (the queue lost their jobs); how many. */
  async requeueWorking(): Promise<number> {
    const working = await this.tasks.listWorking(new Date(this.clock.now()));
    for (const task of working) await this.enqueueRun(task.id);
    if (working.length > 0) this.logger.log(`queued ${working.length} working task(s) again: the work queue did not keep their jobs`);
    return working.length;
  }

  private async findOwned(taskId: string, principal: Principal | undefined, sessionId: string | undefined): Promise<StoredTask> {
    const owner = ownerOf(requirePrincipal(principal), sessionId);
    return this.ownedOrUnknown(await this.tasks.find(taskId), owner);
  }

  /** The task if `owner` may see it; otherwise the same answer as for a task that never existed (S-289). */
  private ownedOrUnknown(task: StoredTask | undefined, owner: TaskOwner): StoredTask {
    if (!task || !isOwnedBy(task, owner) || isExpired(task, this.clock.now())) throw unknownTask();
    return task;
  }

  /** The task if it is `tenant`'s and unexpired; otherwise unknown, as to its owner. */
  private inTenantOrUnknown(task: StoredTask, tenant: string): StoredTask {
    if (task.tenant !== tenant || isExpired(task, this.clock.now())) throw unknownTask();
    return task;
  }

  /**
   * Cancels the task if `visible` shows it to the caller (it throws otherwise): `cancelled` is written
   * under the task's row lock before the answer, so a finish cannot overwrite it (S-283), then announced
   * (the executor stops the run, brokers tell the owner) and audited with `auditDetail` appended.
   */
  private async cancelVisible(taskId: string, visible: (task: StoredTask) => StoredTask, statusMessage: string, auditDetail: string): Promise<StoredTask> {
    const cancelled = await this.tasks.lockTask(taskId, async (locked) => {
      if (!locked) throw unknownTask();
      const task = visible(locked.task);
      if (taskScheduler.isTerminalTaskStatus(task.status)) throw new RpcError(WireErrorCode.InvalidParams, `Task is already ${task.status}`);
      return locked.update({ status: 'cancelled', statusMessage, inputRequests: null, lastUpdatedAt: new Date(this.clock.now()) });
    });
    this.announce(cancelled);
    this.logger.log(`${audit('cancelled', cancelled)}${auditDetail}`);
    return cancelled;
  }

  /**
   * Queues a further run of a task. Its job id is new each time: the queue ignores an id it saw in the
   * last two minutes, and the first job (id = task id) may be that recent.
   */
  private async enqueueRun(taskId: string): Promise<void> {
    try {
      await this.workQueue.enqueue(taskScheduler.TOOL_TASKS_QUEUE, { id: `${taskId}.${randomBytes(6).toString('base64url')}`, data: taskId });
    } catch (error) {
      this.logger.warn(`task ${taskId}: queueing a run failed: ${(error as Error).message}`);
      throw new RpcError(WireErrorCode.Unavailable, 'The task could not be queued; try again');
    }
  }

  /** Tells every replica and broker (S-284), and wakes this replica's waiters at once. */
  private announce(task: StoredTask): void {
    this.bus.emit(taskScheduler.taskStatusChanged, {
      task: toTaskView(task),
      tenant: task.tenant,
      ...(task.originSessionId === null ? {} : { sessionId: task.originSessionId }),
      era: task.era,
      owner: ownerViewOf(task.owner),
    });
    this.waiters.wake(task.id);
  }

  /** The periodic sweep: a failure (the database restarting) is logged and the next round tries again. */
  private async sweepQuietly(): Promise<void> {
    try {
      await this.sweepExpired();
    } catch (error) {
      this.logger.warn(`deleting expired tasks failed: ${(error as Error).message}`);
    }
  }
}

function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new RpcError(WireErrorCode.Forbidden, 'No principal: tasks belong to callers the broker identified');
  return principal;
}

function unknownTask(): RpcError {
  return new RpcError(WireErrorCode.NotFound, 'Unknown task');
}

/** A claim's answer to run the task: its call, as its owner, for its creating session, with the answers so far. */
function runAnswer(task: StoredTask): ClaimAnswer {
  return {
    action: 'run',
    call: task.call,
    principal: task.principal,
    ...(task.originSessionId === null ? {} : { sessionId: task.originSessionId }),
    ...(Object.keys(task.inputResponses).length > 0 ? { inputResponses: task.inputResponses } : {}),
  };
}

/** A page of a list: the first `TASK_PAGE_SIZE` of `rows` (one more was read), and a cursor after the last when more follow (S-240). */
function pageOf<T>(rows: StoredTask[], view: (task: StoredTask) => T): { tasks: T[]; nextCursor?: string } {
  const page = rows.slice(0, TASK_PAGE_SIZE);
  const last = page.at(-1);
  return {
    tasks: page.map(view),
    ...(rows.length > TASK_PAGE_SIZE && last ? { nextCursor: encodeTaskCursor({ createdAt: last.createdAt, id: last.id }) } : {}),
  };
}

function stateOf(task: StoredTask): TaskState {
  return { task: toTaskView(task), ...(task.outcome === null ? {} : { outcome: task.outcome }) };
}

/** An audit line (S-292): what happened to which task, for whom. */
function audit(event: string, task: StoredTask): string {
  return `task ${event}: id=${task.id} tenant=${task.tenant} subject=${JSON.stringify(task.owner.subject)}${task.owner.clientId === null ? '' : ` client=${JSON.stringify(task.owner.clientId)}`}`;
}
