import { Module, type DynamicModule } from '@nestjs/common';

/**
 * Durable MCP tasks for both eras. Its features (status machine, JetStream work queue, TTL) arrive
 * with the tasks issue; today it is a bootable service on the bus with health probes.
 */
@Module({})
export class TaskSchedulerModule {
  static register(): DynamicModule {
    return { module: TaskSchedulerModule };
  }
}
