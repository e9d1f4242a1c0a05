/** The task scheduler's feature module, for the embedded host (`apps/standalone`). */
export { TASK_SCHEDULER_CONNECTION } from './task-scheduler.constants';
export { TaskSchedulerModule } from './task-scheduler.module';
export type { TaskSchedulerOptions } from './task-scheduler.options';
