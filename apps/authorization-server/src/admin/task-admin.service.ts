import { Injectable } from '@nestjs/common';
import { taskScheduler } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import type { AdminPrincipal } from './admin-access';
import type { TaskList, TaskListQuery, TaskView } from './task-admin.schemas';

/**
 * A tenant's MCP tasks as the admin API shows them: each operation is one task scheduler
 * administration RPC. Wire errors pass through unchanged; the admin API's error mapper turns them into
 * statuses (a terminal task's `INVALID_PARAMS` into 400, an unknown one into 404).
 */
@Injectable()
export class TaskAdminService {
  constructor(private readonly bus: MessageBus) {}

  listTasks(tenant: string, query: TaskListQuery): Promise<TaskList> {
    return this.bus.request(taskScheduler.listTenantTasks, {
      tenant,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
  }

  /** Cancels the task as its owner's `tasks/cancel` would; the scheduler's audit line names `actor`. */
  cancelTask(tenant: string, taskId: string, actor: AdminPrincipal): Promise<TaskView> {
    return this.bus.request(taskScheduler.cancelTenantTask, { tenant, taskId, actor: { subject: actor.subject } });
  }
}
