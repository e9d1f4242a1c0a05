import { Get, Post } from '@nestjs/common';
import type { AdminPrincipal } from './admin-access';
import { Actor } from './admin-auth.guard';
import { AdminController, AdminRoute, ZodParam, ZodQueryObject } from './admin-openapi.decorators';
import { TaskIdSchema, type TaskListQuery, TaskListQuerySchema, TaskListSchema, TaskViewSchema, TenantSlugSchema } from './task-admin.schemas';
import { TaskAdminService } from './task-admin.service';

/** A tenant's MCP tasks in the task scheduler: every owner's, to watch and to cancel. */
@AdminController({ path: 'tenants/:tenant/tasks', tag: 'tasks', access: 'tenant' })
export class TasksHttpController {
  constructor(private readonly tasks: TaskAdminService) {}

  @Get()
  @AdminRoute({
    operationId: 'listTasks',
    summary: "List the tenant's tasks, newest first",
    description:
      "Every owner's unexpired tasks, 50 a page; `nextCursor` (when more follow) goes into `cursor` for the next page. Each shows its status, the tool and whose it is, never the call's arguments or its result.",
    response: TaskListSchema,
    errors: [503],
  })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQueryObject(TaskListQuerySchema) query: TaskListQuery) {
    return this.tasks.listTasks(tenant, query);
  }

  @Post(':taskId/cancel')
  @AdminRoute({
    operationId: 'cancelTask',
    summary: 'Cancel a task',
    description:
      "As its owner's `tasks/cancel` would: the task is `cancelled` when this answers, its running tool is stopped and its owner is told. A task already completed, failed or cancelled is 400; an unknown or expired one 404.",
    response: TaskViewSchema,
    errors: [404, 503],
  })
  cancel(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('taskId', TaskIdSchema) taskId: string, @Actor() actor: AdminPrincipal) {
    return this.tasks.cancelTask(tenant, taskId, actor);
  }
}
