import { Controller } from '@nestjs/common';
import { type EventPayload, type RpcRequestParsed, taskScheduler } from '@mcp-platform/protocol-contracts';
import { type CallContext, EventHandler, RpcHandler } from '@mcp-platform/shared-messaging';
import { TasksService } from './tasks.service';

/**
 * The task contracts on the bus: one call into the service each. Owner operations read the caller
 * from the principal header; tenant operations come from the admin API; claims and finishes come from
 * the tool executors' workers.
 */
@Controller()
export class TasksNatsController {
  constructor(private readonly tasks: TasksService) {}

  @RpcHandler(taskScheduler.createTask)
  createTask(request: RpcRequestParsed<typeof taskScheduler.createTask>, context: CallContext) {
    return this.tasks.create(request, context.principal);
  }

  @RpcHandler(taskScheduler.getTask)
  getTask(request: RpcRequestParsed<typeof taskScheduler.getTask>, context: CallContext) {
    return this.tasks.get(request.taskId, context.principal, request.sessionId);
  }

  @RpcHandler(taskScheduler.awaitTask)
  awaitTask(request: RpcRequestParsed<typeof taskScheduler.awaitTask>, context: CallContext) {
    return this.tasks.await(request.taskId, request.waitMs, context.principal, request.sessionId);
  }

  @RpcHandler(taskScheduler.listTasks)
  listTasks(request: RpcRequestParsed<typeof taskScheduler.listTasks>, context: CallContext) {
    return this.tasks.list(request.tenant, request.cursor, context.principal, request.sessionId);
  }

  @RpcHandler(taskScheduler.cancelTask)
  cancelTask(request: RpcRequestParsed<typeof taskScheduler.cancelTask>, context: CallContext) {
    return this.tasks.cancel(request.taskId, context.principal, request.sessionId);
  }

  /** The admin API checked that its caller administers `tenant`; the bus carries no principal for it. */
  @RpcHandler(taskScheduler.listTenantTasks)
  listTenantTasks(request: RpcRequestParsed<typeof taskScheduler.listTenantTasks>) {
    return this.tasks.listForTenant(request.tenant, request.status, request.cursor);
  }

  /** The authorization server deletes a tenant: its tasks go with it. */
  @RpcHandler(taskScheduler.deleteTenantTasks)
  deleteTenantTasks(request: RpcRequestParsed<typeof taskScheduler.deleteTenantTasks>) {
    return this.tasks.deleteForTenant(request.tenant);
  }

  @RpcHandler(taskScheduler.cancelTenantTask)
  cancelTenantTask(request: RpcRequestParsed<typeof taskScheduler.cancelTenantTask>) {
    return this.tasks.cancelForTenant(request.tenant, request.taskId, request.actor);
  }

  @RpcHandler(taskScheduler.updateTask)
  updateTask(request: RpcRequestParsed<typeof taskScheduler.updateTask>, context: CallContext) {
    return this.tasks.update(request.taskId, request.inputResponses, context.principal, request.sessionId);
  }

  @RpcHandler(taskScheduler.claimTask)
  claimTask(request: RpcRequestParsed<typeof taskScheduler.claimTask>) {
    return this.tasks.claim(request.taskId, request.attempt, request.maxAttempts, request.claimToken);
  }

  @RpcHandler(taskScheduler.finishTask)
  finishTask(request: RpcRequestParsed<typeof taskScheduler.finishTask>) {
    return this.tasks.finish(request.taskId, request.ending);
  }

  @RpcHandler(taskScheduler.reportTaskInput)
  reportTaskInput(request: RpcRequestParsed<typeof taskScheduler.reportTaskInput>) {
    return this.tasks.reportInput(request.taskId, request.waiting);
  }

  @RpcHandler(taskScheduler.reportTaskProgress)
  reportTaskProgress(request: RpcRequestParsed<typeof taskScheduler.reportTaskProgress>) {
    return this.tasks.reportProgress(request.taskId, request.statusMessage);
  }

  /** Every replica hears every change (delivery `all`): waiters of another replica's task wake at once. */
  @EventHandler(taskScheduler.taskStatusChanged)
  taskStatusChanged(payload: EventPayload<typeof taskScheduler.taskStatusChanged>): void {
    this.tasks.taskChangedElsewhere(payload.task.taskId);
  }
}
