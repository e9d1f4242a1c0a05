import { z } from 'zod';
import { LoggingLevelSchema } from '@mcp-platform/protocol-mcp';
import { PrincipalSchema } from '../common/principal';
import { UpstreamTaskSchema } from '../common/upstream-task';
import { WireErrorSchema } from '../common/wire-error';
import { defineEvent, defineRpc } from '../define-contract';

/**
 * The work queue of task runs (`WorkQueue`): the scheduler enqueues one job per run, whose data is the
 * task id; tool executors work it and ask `claimTask` before running.
 */
export const TOOL_TASKS_QUEUE = 'tool-tasks';

/** A task's status (S-278): it starts `working`; `completed`, `failed` and `cancelled` are terminal and never change. */
export const TaskStatusSchema = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.includes(status);
}

/** Task ids: 128 random bits in base64url (S-290, S-306: unguessable). */
export const TaskIdSchema = z.string().regex(/^[A-Za-z0-9_-]{22,64}$/, 'a task id');

/** A task as the scheduler shows it; each era's front end words it its own way (S-277, S-297). */
export const TaskViewSchema = z.object({
  taskId: TaskIdSchema,
  status: TaskStatusSchema,
  statusMessage: z.string().optional(),
  /** ISO 8601. */
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  /** How long the task and its result are kept after creation (the platform bounds every task's). */
  ttlMs: z.number().int().positive(),
  /** How often a client should poll. */
  pollIntervalMs: z.number().int().positive(),
  /** Modern era, `input_required`: what the task asks its client, by input key (S-300). */
  inputRequests: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});
export type TaskView = z.infer<typeof TaskViewSchema>;

/** How the task's call ended: the tool's result, or the error the call would have answered (a wire error). */
export const TaskOutcomeSchema = z.union([z.strictObject({ result: z.record(z.string(), z.unknown()) }), z.strictObject({ error: WireErrorSchema })]);
export type TaskOutcome = z.infer<typeof TaskOutcomeSchema>;

/** A task with its outcome once it has one. */
export const TaskStateSchema = z.object({ task: TaskViewSchema, outcome: TaskOutcomeSchema.optional() });
export type TaskState = z.infer<typeof TaskStateSchema>;

/**
 * Whose a task is (S-289): the caller the broker authenticated, and, for an anonymous caller of a
 * legacy session, that session (the only identity it has). Every task operation names it; a task of
 * another owner is "not found".
 */
const OwnedRequest = {
  /** The legacy session the request came through (anonymous callers' tasks are bound to it). */
  sessionId: z.string().min(1).max(256).optional(),
};

/** The tool call a task runs, as `toolExecutor.callTool` takes it (minus what the worker adds). */
export const TaskCallSchema = z.object({
  tenant: z.string().min(1).max(64),
  server: z.string().min(1).max(64),
  name: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).optional(),
  protocolVersion: z.string(),
  clientCapabilities: z.record(z.string(), z.unknown()).optional(),
  /** Legacy: the request's `_meta.progressToken`, valid for the task's whole life (its progress goes to the creating session). */
  progressToken: z.union([z.string(), z.number().int()]).optional(),
  /** Legacy: the session's log level when the task was created; absent, the run sends no logs. */
  logLevel: LoggingLevelSchema.optional(),
  /** The upstream server's task the call created when it was offered (issue 15 §4): every run follows it. */
  upstreamTask: UpstreamTaskSchema.optional(),
});
export type TaskCall = z.infer<typeof TaskCallSchema>;

/**
 * Creates a task for a tool call (principal in the headers) and queues its work. Resolves once the task
 * is stored, so a `getTask` anywhere finds it (S-298). The tool must allow tasks (`UNSUPPORTED` otherwise).
 */
export const createTask = defineRpc({
  subject: 'task-scheduler.v1.task.create',
  request: z.object({
    ...OwnedRequest,
    era: z.enum(['legacy', 'modern']),
    call: TaskCallSchema,
    /** The TTL the client asked for (S-275), in ms; the scheduler bounds it. */
    requestedTtlMs: z.number().int().nonnegative().optional(),
    /**
     * Modern era: the answers the call gathered before its task was created (issue 14 §2.4: a tool that
     * needs input first answers `input_required` before any task exists), stored with the task as the
     * answers its runs start from, like those `updateTask` brings.
     */
    inputResponses: z.record(z.string().min(1).max(256), z.unknown()).optional(),
  }),
  response: TaskViewSchema,
});

/** One task of the caller, with its outcome once it has one. */
export const getTask = defineRpc({
  subject: 'task-scheduler.v1.task.get',
  request: z.object({ ...OwnedRequest, taskId: z.string().max(128) }),
  response: TaskStateSchema,
});

/**
 * Like `getTask`, but waits (at most `waitMs`) for the task to reach a terminal status first; the
 * broker asks again until it has (legacy `tasks/result` blocks, S-281).
 */
export const awaitTask = defineRpc({
  subject: 'task-scheduler.v1.task.await',
  request: z.object({ ...OwnedRequest, taskId: z.string().max(128), waitMs: z.number().int().min(0).max(30_000) }),
  response: TaskStateSchema,
  timeoutMs: 40_000,
});

/** The caller's tasks, newest first, a page at a time (S-282). */
export const listTasks = defineRpc({
  subject: 'task-scheduler.v1.task.list',
  request: z.object({ ...OwnedRequest, tenant: z.string().min(1).max(64), cursor: z.string().optional() }),
  response: z.object({ tasks: z.array(TaskViewSchema), nextCursor: z.string().optional() }),
});

/**
 * Cancels a task (S-283, S-302): `cancelled` before the answer, and the running work is told to stop.
 * A terminal task is `INVALID_PARAMS` (legacy wording; the modern era acknowledges anyway).
 */
export const cancelTask = defineRpc({
  subject: 'task-scheduler.v1.task.cancel',
  request: z.object({ ...OwnedRequest, taskId: z.string().max(128) }),
  response: TaskViewSchema,
});

/** Modern era: the client's answers to the task's input requests (S-301); keys not outstanding are ignored. */
export const updateTask = defineRpc({
  subject: 'task-scheduler.v1.task.update',
  request: z.object({ ...OwnedRequest, taskId: z.string().max(128), inputResponses: z.record(z.string().min(1).max(256), z.unknown()) }),
  response: z.object({}),
});

/**
 * A tool executor took a task's job from the work queue (`attempt` = its delivery count): `run` with the
 * call and the owner's principal, `skip` (the task is terminal, or may not run again: a non-idempotent
 * tool whose earlier run was cut short fails instead, S-287), or `retry` later (the tenant is at its
 * concurrency limit).
 */
export const claimTask = defineRpc({
  subject: 'task-scheduler.v1.task.claim',
  request: z.object({
    taskId: TaskIdSchema,
    attempt: z.number().int().positive(),
    maxAttempts: z.number().int().positive(),
    /** The worker's token for this delivery: asking again with it after a lost answer gets the same answer. */
    claimToken: z.string().min(8).max(64),
  }),
  response: z.discriminatedUnion('action', [
    z.object({
      action: z.literal('run'),
      call: TaskCallSchema,
      principal: PrincipalSchema,
      /** Legacy: the session that created the task, where its tool's messages and requests go (S-286). */
      sessionId: z.string().optional(),
      inputResponses: z.record(z.string(), z.unknown()).optional(),
    }),
    z.object({ action: z.literal('skip') }),
    z.object({ action: z.literal('retry'), afterMs: z.number().int().positive() }),
  ]),
});

/**
 * A task's run ended: its outcome (a cancelled run's is dropped: the task stays `cancelled`, S-283), or,
 * modern era, the input it needs (`input_required` until `updateTask` brings the answers, then it runs again).
 */
export const finishTask = defineRpc({
  subject: 'task-scheduler.v1.task.finish',
  request: z.object({
    taskId: TaskIdSchema,
    ending: z.union([
      z.strictObject({ outcome: TaskOutcomeSchema }),
      z.strictObject({ inputRequests: z.record(z.string().min(1).max(256), z.record(z.string(), z.unknown())) }),
    ]),
  }),
  response: z.object({}),
});

/**
 * Legacy era: a task's run is waiting for its client to answer a request (`input_required`, S-286), or no
 * longer is (`working` again). Only a `working` or `input_required` task changes; anything else is ignored.
 */
export const reportTaskInput = defineRpc({
  subject: 'task-scheduler.v1.task.report-input',
  request: z.object({ taskId: TaskIdSchema, waiting: z.boolean() }),
  response: z.object({}),
});

/**
 * A running task's latest progress, in words: its status message while `working`, so a client polling
 * `tasks/get` sees how far it got (the executor sends it at most every few seconds). Ignored unless the
 * task's run is open and it is `working`; not a status change (nothing is announced).
 */
export const reportTaskProgress = defineRpc({
  subject: 'task-scheduler.v1.task.report-progress',
  request: z.object({ taskId: TaskIdSchema, statusMessage: z.string().min(1).max(500) }),
  response: z.object({}),
});

/**
 * A task's status changed (every replica of every subscriber hears it): brokers push
 * `notifications/tasks/status` (S-284) to the session that created it (and modern listeners of its owner
 * `notifications/tasks`, S-304), schedulers wake their waiters,
 * executors stop the run of a cancelled task.
 */
export const taskStatusChanged = defineEvent({
  subject: 'task-scheduler.v1.task.status-changed',
  delivery: 'all',
  payload: z.object({
    task: TaskViewSchema,
    tenant: z.string(),
    /** The legacy session that created the task. */
    sessionId: z.string().optional(),
    era: z.enum(['legacy', 'modern']),
    /** Whose the task is (S-289): only this caller may hear of it (a modern listener, S-304). */
    owner: z.object({ subject: z.string(), clientId: z.string().optional(), anonymous: z.boolean() }),
  }),
});
