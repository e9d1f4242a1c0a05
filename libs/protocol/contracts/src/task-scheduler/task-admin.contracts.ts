import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { TaskStatusSchema, TaskViewSchema } from './task.contracts';

/**
 * A tenant's MCP tasks as its administrators see them (the admin API of the authorization server calls
 * these, after checking the caller administers the tenant): every owner's tasks, and cancelling any of
 * them. The scheduler applies the owner's rules otherwise: expired tasks are unknown, a terminal task
 * cannot be cancelled (S-283).
 */

const Tenant = z.string().regex(TENANT_SLUG_PATTERN, 'a tenant slug');

/**
 * A task with what an operator needs to tell whose it is and what it runs. Deliberately without the
 * call's arguments, the outcome and the owner's principal (its scopes): tool arguments and results may
 * hold secrets of the owner (tokens, personal data) that an administrator has no need to read.
 */
export const AdminTaskViewSchema = TaskViewSchema.extend({
  /** The virtual server the task's tool was called through. */
  server: z.string(),
  /** The tool's name, as called. */
  tool: z.string(),
  era: z.enum(['legacy', 'modern']),
  /** Whose the task is (S-289): the caller's subject, its OAuth client, and whether it was anonymous. */
  owner: z.object({ subject: z.string(), clientId: z.string().optional(), anonymous: z.boolean() }),
  /** Runs a tool executor started (more than one: a worker died and an idempotent tool ran again). */
  runsStarted: z.number().int().nonnegative(),
  /** Whether the tool may run again after a worker died mid-run. */
  idempotent: z.boolean(),
});
export type AdminTaskView = z.infer<typeof AdminTaskViewSchema>;

/**
 * The tenant's unexpired tasks, of every owner, newest first, 50 a page; `status` keeps only tasks in
 * that status. `nextCursor` (opaque) is there when more follow; a cursor the scheduler did not mint is
 * `INVALID_PARAMS`.
 */
export const listTenantTasks = defineRpc({
  subject: 'task-scheduler.v1.tenant-task.list',
  request: z.object({ tenant: Tenant, status: TaskStatusSchema.optional(), cursor: z.string().optional() }),
  response: z.object({ tasks: z.array(AdminTaskViewSchema), nextCursor: z.string().optional() }),
});

/**
 * Cancels a task of the tenant as its owner's `cancelTask` does (S-283): `cancelled` is stored before
 * the answer and announced (`taskStatusChanged`), so its running work stops and its owner hears of it.
 * A terminal task is `INVALID_PARAMS`; an unknown or expired task, or one of another tenant, `NOT_FOUND`.
 * `actor` is the administrator, for the scheduler's audit log.
 */
export const cancelTenantTask = defineRpc({
  subject: 'task-scheduler.v1.tenant-task.cancel',
  request: z.object({
    tenant: Tenant,
    taskId: z.string().max(128),
    actor: z.object({ subject: z.string().min(1).max(256) }),
  }),
  response: AdminTaskViewSchema,
});

/**
 * Deletes every task of a tenant, when the tenant is deleted: tasks live under its slug, and a tenant
 * created later with the same slug must see none of them. Tasks not yet terminal are announced
 * `cancelled` first (`taskStatusChanged`), so their running work stops. Idempotent; answers how many
 * tasks were deleted.
 */
export const deleteTenantTasks = defineRpc({
  subject: 'task-scheduler.v1.tenant-tasks.delete',
  request: z.object({ tenant: Tenant }),
  response: z.object({ deleted: z.number().int().nonnegative() }),
});
