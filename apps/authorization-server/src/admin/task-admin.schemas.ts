import { z } from 'zod';
import { taskScheduler } from '@mcp-platform/protocol-contracts';

/**
 * Parameters and answers of the task routes, built from the task scheduler's administration contracts
 * (`task-admin.contracts.ts`), so the API documents exactly what the scheduler answers.
 */

export { TenantSlugSchema } from './identity-admin.schemas';

/** A task's id in a path: 128 random bits in base64url (S-290). */
export const TaskIdSchema = taskScheduler.TaskIdSchema;

/** The optional query parameters of the task list: a status to keep, and where the previous page ended. */
export const TaskListQuerySchema = z.object({
  status: taskScheduler.TaskStatusSchema.optional().describe('Only tasks in this status'),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/, 'a cursor of a previous page')
    .optional()
    .describe('The `nextCursor` of the previous page'),
});
export type TaskListQuery = z.output<typeof TaskListQuerySchema>;

/**
 * A task as an administrator sees it: status, timestamps, tool and owner; never its arguments, its
 * result or its owner's scopes (they may hold the owner's secrets).
 */
export const TaskViewSchema = taskScheduler.AdminTaskViewSchema;
export type TaskView = z.output<typeof TaskViewSchema>;

/** A page of a tenant's tasks, newest first; `nextCursor` when more follow. */
export const TaskListSchema = z.object({ tasks: z.array(TaskViewSchema), nextCursor: z.string().optional() });
export type TaskList = z.output<typeof TaskListSchema>;
