import { type DynamicModule, Module } from '@nestjs/common';
import { SystemClock } from '@mcp-platform/shared-clock';
import { PersistenceModule } from '@mcp-platform/shared-persistence';
import { STORE_ENTITIES, STORE_MIGRATIONS } from './store/store.entities';
import {
  DEFAULT_MAX_TASK_TTL_SECONDS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_SECONDS,
  DEFAULT_TENANT_CONCURRENCY,
  MIN_TASK_TTL_MS,
  TASK_SCHEDULER_CONNECTION,
  TASK_SCHEDULER_SCHEMA,
} from './task-scheduler.constants';
import type { TaskSchedulerOptions } from './task-scheduler.options';
import { TasksModule } from './tasks/tasks.module';

/**
 * Durable MCP tasks for both eras (DESIGN.md §3): the status machine, TTLs, results, cancellation and
 * input requests, with runs queued on the work queue toward the tool executors. Transport-agnostic:
 * the app's own process (`AppModule`) and the embedded host (`apps/standalone`) both import it. Needs
 * `MessagingModule` (bus and work queue) from its host.
 */
@Module({})
export class TaskSchedulerModule {
  static register(options: TaskSchedulerOptions): DynamicModule {
    const maxTtlMs = (options.maxTtlSeconds ?? DEFAULT_MAX_TASK_TTL_SECONDS) * 1000;
    return {
      module: TaskSchedulerModule,
      imports: [
        PersistenceModule.forApp({
          name: TASK_SCHEDULER_CONNECTION,
          schema: TASK_SCHEDULER_SCHEMA,
          database: options.database,
          entities: STORE_ENTITIES,
          migrations: STORE_MIGRATIONS,
          applicationName: 'task-scheduler',
        }),
        TasksModule.register(
          {
            minTtlMs: MIN_TASK_TTL_MS,
            maxTtlMs: Math.max(MIN_TASK_TTL_MS, maxTtlMs),
            defaultTtlMs: Math.min(maxTtlMs, (options.defaultTtlSeconds ?? DEFAULT_TASK_TTL_SECONDS) * 1000),
            pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
            tenantConcurrency: options.tenantConcurrency ?? DEFAULT_TENANT_CONCURRENCY,
          },
          options.clock ?? new SystemClock(),
        ),
      ],
    };
  }
}
