/** The task scheduler's feature module, for the embedded host (`apps/standalone`). */
export { TaskSchedulerModule } from './task-scheduler.module';
