/** The named TypeORM connection of this app (several apps share one process in embedded mode). */
export const TASK_SCHEDULER_CONNECTION = 'task-scheduler';

/** The app's own Postgres schema. */
export const TASK_SCHEDULER_SCHEMA = 'task_scheduler';

/** How long a task and its result are kept when the client asks for nothing (`TASK_DEFAULT_TTL_SECONDS`). */
export const DEFAULT_TASK_TTL_SECONDS = 3_600;

/** The longest a task is kept whatever the client asks (`TASK_MAX_TTL_SECONDS`, S-279, S-291). */
export const DEFAULT_MAX_TASK_TTL_SECONDS = 86_400;

/** The largest TTL the configuration may allow: 24 days (`ttl_ms` is an `integer` column). */
export const MAX_CONFIGURABLE_TTL_SECONDS = 24 * 86_400;

/** The shortest TTL a task gets: a client asking less could not even poll it once or twice. */
export const MIN_TASK_TTL_MS = 10_000;

/** The poll interval the scheduler suggests to clients (`TASK_POLL_INTERVAL_MS`). */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** Task runs of one tenant in progress at once, on all executors (`TASK_TENANT_CONCURRENCY`, S-291). */
export const DEFAULT_TENANT_CONCURRENCY = 8;

/** How often each replica deletes expired tasks (and once at boot). */
export const TASK_SWEEP_INTERVAL_MS = 60_000;

/**
 * How often a waiting `awaitTask` reads the task again: its wake-ups (this replica's updates, other
 * replicas' `taskStatusChanged` events) are at most once, so a lost event costs this much at most.
 */
export const AWAIT_RECHECK_MS = 2_000;

/** Tasks per page of `listTasks` (S-282: ours to choose). */
export const TASK_PAGE_SIZE = 50;
