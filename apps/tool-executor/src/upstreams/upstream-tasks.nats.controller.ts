import { Controller } from '@nestjs/common';
import { type EventPayload, toolExecutor } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { UpstreamTasks } from './upstream-tasks';

/** What the broker says of the upstream tasks the executor's offers made (issue 15 §4). */
@Controller()
export class UpstreamTasksNatsController {
  constructor(private readonly tasks: UpstreamTasks) {}

  @EventHandler(toolExecutor.upstreamTaskAbandoned, { group: 'tool-executor' })
  abandoned(payload: EventPayload<typeof toolExecutor.upstreamTaskAbandoned>): Promise<void> {
    return this.tasks.abandoned(payload);
  }
}
