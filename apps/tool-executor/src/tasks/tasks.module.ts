import { type DynamicModule, Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { BuiltinModule } from '../builtin/builtin.module';
import type { TaskWorkerOptions } from '../tool-executor.options';
import { TaskWorker } from './task.worker';
import { TASK_WORKER_OPTIONS } from './tasks.constants';
import { TasksNatsController } from './tasks.nats.controller';

/** Runs MCP tasks' tool calls from the scheduler's work queue. */
@Module({})
export class TasksModule {
  /** `tools` is the app's `ToolsModule`: task runs share its `CallsService` with the calls served on the bus. */
  static register(options: TaskWorkerOptions, tools: DynamicModule): DynamicModule {
    return {
      module: TasksModule,
      imports: [tools, BuiltinModule],
      controllers: [TasksNatsController],
      providers: [TaskWorker, { provide: TASK_WORKER_OPTIONS, useValue: options }, { provide: IdSource, useClass: RandomIds }],
    };
  }
}
