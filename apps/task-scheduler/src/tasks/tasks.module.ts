import { type DynamicModule, Module } from '@nestjs/common';
import { Clock } from '@mcp-platform/shared-clock';
import { MemoryWorkQueue, WorkQueue } from '@mcp-platform/shared-messaging';
import { StoreModule } from '../store/store.module';
import { TASK_SETTINGS, type TaskSettings } from './task-settings';
import { TaskWaiters } from './task-waiters';
import { TasksNatsController } from './tasks.nats.controller';
import { TasksService } from './tasks.service';

/** The task contracts and their rules, on the tasks table and the work queue of the host's `MessagingModule`. */
@Module({})
export class TasksModule {
  static register(settings: Omit<TaskSettings, 'requeueOnBoot'>, clock: Clock): DynamicModule {
    return {
      module: TasksModule,
      imports: [StoreModule],
      controllers: [TasksNatsController],
      providers: [
        TasksService,
        TaskWaiters,
        { provide: Clock, useValue: clock },
        {
          provide: TASK_SETTINGS,
          inject: [WorkQueue],
          // A queue in this process's memory lost the jobs of the previous process: the scheduler queues
          // its working tasks again at boot. JetStream keeps them, so over NATS it does not.
          useFactory: (workQueue: WorkQueue): TaskSettings => ({ ...settings, requeueOnBoot: workQueue instanceof MemoryWorkQueue }),
        },
      ],
      exports: [TasksService],
    };
  }
}
