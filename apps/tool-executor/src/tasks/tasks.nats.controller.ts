import { Controller } from '@nestjs/common';
import { type EventPayload, taskScheduler, toolExecutor } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { TaskWorker } from './task.worker';

/** What the tool executor hears about tasks: their status changes (a cancelled task's run stops), their `tasks/result` streams opening. */
@Controller()
export class TasksNatsController {
  constructor(private readonly worker: TaskWorker) {}

  @EventHandler(taskScheduler.taskStatusChanged)
  taskStatusChanged(payload: EventPayload<typeof taskScheduler.taskStatusChanged>): void {
    this.worker.statusChanged(payload);
  }

  @EventHandler(toolExecutor.taskResultAwaited)
  taskResultAwaited(payload: EventPayload<typeof toolExecutor.taskResultAwaited>): void {
    this.worker.resultAwaited(payload);
  }
}
