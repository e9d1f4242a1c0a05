import { Module, type DynamicModule } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import type { TaskSchedulerEnv } from './config/env.schema';
import { TaskSchedulerModule } from './task-scheduler.module';

/** The task scheduler as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: TaskSchedulerEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'task-scheduler', level: env.LOG_LEVEL }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot(),
        TaskSchedulerModule.register(),
      ],
    };
  }
}
