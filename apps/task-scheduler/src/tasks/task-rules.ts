import type { Principal, taskScheduler } from '@mcp-platform/protocol-contracts';
import type { StoredTask, TaskEra, TaskOwner } from '../store/stored-task';

/** The TTL limits of the scheduler, in ms. */
export interface TtlLimits {
  defaultTtlMs: number;
  maxTtlMs: number;
  minTtlMs: number;
}

/**
 * The TTL a task gets (S-279: ours to override): the default when the client asked for none, never
 * above the maximum (S-291), never below the minimum.
 */
export function boundTtlMs(requestedTtlMs: number | undefined, limits: TtlLimits): number {
  const wanted = requestedTtlMs ?? limits.defaultTtlMs;
  return Math.max(limits.minTtlMs, Math.min(limits.maxTtlMs, wanted));
}

/**
 * The owner a request speaks for (S-289): the principal, and for an anonymous caller the session it
 * came through (S-290: an anonymous caller has no other identity; without a session, the task id is
 * the only secret).
 */
export function ownerOf(principal: Principal, sessionId: string | undefined): TaskOwner {
  return {
    tenant: principal.tenant,
    subject: principal.subject,
    clientId: principal.clientId ?? null,
    anonymous: principal.anonymous,
    sessionId: principal.anonymous ? (sessionId ?? null) : null,
  };
}

/** Whether `owner` may see the task: same tenant, subject, client, anonymity and (anonymous callers) session. */
export function isOwnedBy(task: StoredTask, owner: TaskOwner): boolean {
  const own = task.owner;
  return (
    own.tenant === owner.tenant &&
    own.subject === owner.subject &&
    own.clientId === owner.clientId &&
    own.anonymous === owner.anonymous &&
    own.sessionId === owner.sessionId
  );
}

/** A task is gone once its TTL has passed (S-279), whether or not the sweep deleted it yet. */
export function isExpired(task: StoredTask, now: number): boolean {
  return task.expiresAt.getTime() <= now;
}

/** The task as the contracts show it; outstanding input requests only while it waits for them (S-300). */
export function toTaskView(task: StoredTask): taskScheduler.TaskView {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage === null ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    ...(task.status === 'input_required' && task.inputRequests ? { inputRequests: task.inputRequests } : {}),
  };
}

/** Whose a task is, as events and administrators show it (the session of an anonymous owner left out). */
export function ownerViewOf(owner: TaskOwner): { subject: string; clientId?: string; anonymous: boolean } {
  return { subject: owner.subject, ...(owner.clientId === null ? {} : { clientId: owner.clientId }), anonymous: owner.anonymous };
}

/**
 * The task as a tenant's administrators see it (`listTenantTasks`): its view, the tool and whose it is.
 * Never the call's arguments, the outcome or the owner's principal: they may hold the owner's secrets.
 */
export function toAdminTaskView(task: StoredTask): taskScheduler.AdminTaskView {
  return {
    ...toTaskView(task),
    server: task.server,
    tool: task.call.name,
    era: task.era,
    owner: ownerViewOf(task.owner),
    runsStarted: task.runsStarted,
    idempotent: task.idempotent,
  };
}

/** Longest status message taken from a tool's error text. */
const MAX_STATUS_MESSAGE_LENGTH = 500;

/**
 * The terminal status an outcome gives a task. A wire error is `failed` with its message (S-287,
 * S-303). A tool result with `isError: true` is `failed` in the legacy era (S-287) and `completed`
 * in the modern era (S-303: `failed` only for JSON-RPC errors). Anything else is `completed`.
 */
export function statusOfOutcome(
  era: TaskEra,
  outcome: taskScheduler.TaskOutcome,
): { status: Extract<taskScheduler.TaskStatus, 'completed' | 'failed'>; statusMessage: string | null } {
  if ('error' in outcome) return { status: 'failed', statusMessage: outcome.error.message };
  if (outcome.result['isError'] !== true || era === 'modern') return { status: 'completed', statusMessage: null };
  const text = firstText(outcome.result['content']);
  const detail = text === undefined ? '' : `: ${text.length > MAX_STATUS_MESSAGE_LENGTH ? `${text.slice(0, MAX_STATUS_MESSAGE_LENGTH)}…` : text}`;
  return { status: 'failed', statusMessage: `The tool reported an error${detail}` };
}

function firstText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const block of content as unknown[]) {
    if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string' && text.length > 0) return text;
    }
  }
  return undefined;
}

/**
 * How many times a task may be started: a run that keeps killing its worker (an idempotent tool
 * started again each time) fails after this many starts instead of being delivered for ever.
 */
export const MAX_RUNS = 3;

/**
 * How long a job waits before it asks again while its tenant is at its concurrency limit: longer with
 * each delivery (1 s, 2 s, … 30 s), so a queue of waiting tasks costs little and waits for hours
 * within the queue's deliveries.
 */
export function concurrencyRetryAfterMs(attempt: number): number {
  return Math.min(30_000, 1_000 * Math.max(1, attempt));
}

/** What a claim does with a task, before the tenant's concurrency is counted; `again`: the claim that opened the run asks again. */
export type ClaimDecision = { kind: 'skip' } | { kind: 'fail'; statusMessage: string } | { kind: 'run'; again?: true };

/**
 * Whether the task's work is under way: `working`, or `input_required` while its run waits for the
 * client's answer (legacy era, S-286). A modern task waiting for input has no run: the answer starts one.
 */
export function isRunning(task: StoredTask): boolean {
  return task.status === 'working' || (task.status === 'input_required' && task.runOpen);
}

/**
 * A worker took the task's job (`attempt`: the job's delivery count). A task that is gone, terminal or
 * waiting for input without a run is skipped (its job is done: an answer to its input enqueues a new one). Past the
 * queue's attempts, it fails. The claim that opened the run asking again (`claimToken`: it never got the
 * answer) runs it. Any other claim of an open run means the worker that claimed it died before finishing:
 * the tool runs again only if it is idempotent, and at most {@link MAX_RUNS} starts in all; otherwise the
 * task fails rather than repeat its effects.
 */
export function decideClaim(task: StoredTask | undefined, now: number, attempt: number, maxAttempts: number, claimToken: string): ClaimDecision {
  if (!task || isExpired(task, now) || !isRunning(task)) return { kind: 'skip' };
  if (task.runOpen && task.runToken === claimToken) return { kind: 'run', again: true };
  if (attempt > maxAttempts) return { kind: 'fail', statusMessage: `The task's work was delivered ${maxAttempts} times and never finished` };
  if (task.runOpen && !task.idempotent) {
    return { kind: 'fail', statusMessage: 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again' };
  }
  if (task.runOpen && task.runsStarted >= MAX_RUNS) {
    return { kind: 'fail', statusMessage: `The task was started ${MAX_RUNS} times and its worker stopped before it finished each time` };
  }
  return { kind: 'run' };
}

/**
 * The answers of an update that count (S-301): those for keys the task asks now; answers to keys it
 * does not ask (or no longer asks) are ignored.
 */
export function outstandingAnswers(inputRequests: Record<string, unknown> | null, inputResponses: Record<string, unknown>): Record<string, unknown> {
  if (!inputRequests) return {};
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(inputResponses).filter(([key]) => Object.hasOwn(inputRequests, key)));
}

/**
 * The requests still waiting for an answer once `answered` came (SEP-2663 partial fulfillment: a task
 * stays `input_required`, asking only these, until every request has its answer); `undefined` when none.
 */
export function stillPending<T>(inputRequests: Record<string, T> | null, answered: Record<string, unknown>): Record<string, T> | undefined {
  if (!inputRequests) return undefined;
  const pending = Object.entries(inputRequests).filter(([key]) => !Object.hasOwn(answered, key));
  return pending.length === 0 ? undefined : Object.fromEntries(pending);
}
