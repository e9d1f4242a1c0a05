import { type DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import { databaseHealthChecks } from '@mcp-platform/shared-persistence';
import type { TaskSchedulerEnv } from './config/env.schema';
import { TASK_SCHEDULER_CONNECTION } from './task-scheduler.constants';
import { TaskSchedulerModule } from './task-scheduler.module';

/** The task scheduler as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: TaskSchedulerEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'task-scheduler', level: env.LOG_LEVEL, format: env.LOG_FORMAT }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot({ checks: databaseHealthChecks([TASK_SCHEDULER_CONNECTION]) }),
        TaskSchedulerModule.register({
          database: { kind: 'postgres', url: env.DATABASE_URL },
          defaultTtlSeconds: env.TASK_DEFAULT_TTL_SECONDS,
          maxTtlSeconds: env.TASK_MAX_TTL_SECONDS,
          pollIntervalMs: env.TASK_POLL_INTERVAL_MS,
          tenantConcurrency: env.TASK_TENANT_CONCURRENCY,
        }),
      ],
    };
  }
}
