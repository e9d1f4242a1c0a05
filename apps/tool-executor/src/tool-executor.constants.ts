/** The named TypeORM connection of this app (several apps share one process in embedded mode). */
export const TOOL_EXECUTOR_CONNECTION = 'tool-executor';

/** The app's own Postgres schema. */
export const TOOL_EXECUTOR_SCHEMA = 'tool_executor';
