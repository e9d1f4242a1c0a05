import { CreateTaskScheduler1767657600000 } from './migrations/1767657600000-CreateTaskScheduler';
import { AddTaskRunToken1767744000000 } from './migrations/1767744000000-AddTaskRunToken';
import { AddTaskTenantIndex1767830400000 } from './migrations/1767830400000-AddTaskTenantIndex';
import { TaskEntity } from './task.entity';

/** The explicit entity list of the task scheduler's DataSource (STYLE.md §7). */
export const STORE_ENTITIES = [TaskEntity];

/** The committed migrations, in order. */
export const STORE_MIGRATIONS = [CreateTaskScheduler1767657600000, AddTaskRunToken1767744000000, AddTaskTenantIndex1767830400000];
