import { z } from 'zod';
import { httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';
import {
  DEFAULT_MAX_TASK_TTL_SECONDS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_SECONDS,
  DEFAULT_TENANT_CONCURRENCY,
  MAX_CONFIGURABLE_TTL_SECONDS,
  MIN_TASK_TTL_MS,
} from '../task-scheduler.constants';

const ttlSeconds = z.coerce
  .number()
  .int()
  .min(MIN_TASK_TTL_MS / 1000)
  .max(MAX_CONFIGURABLE_TTL_SECONDS);

/** The task scheduler's environment (`.env.example` beside the app lists every key). */
export const taskSchedulerEnv = {
  ...natsEnv,
  ...postgresEnv,
  ...httpEnv(3104),
  ...logEnv,
  /** TTL of a task whose client asked for none, in seconds (capped by the maximum). */
  TASK_DEFAULT_TTL_SECONDS: ttlSeconds.default(DEFAULT_TASK_TTL_SECONDS),
  /** The longest a task and its result are kept, in seconds, whatever the client asks (S-291). */
  TASK_MAX_TTL_SECONDS: ttlSeconds.default(DEFAULT_MAX_TASK_TTL_SECONDS),
  /** The poll interval suggested to clients, in ms. */
  TASK_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_POLL_INTERVAL_MS),
  /** Runs of one tenant's tasks in progress at once, on all tool executors (S-291). */
  TASK_TENANT_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_TENANT_CONCURRENCY),
};

export type TaskSchedulerEnv = ReturnType<typeof loadTaskSchedulerEnv>;

/** The one place this app reads `process.env`. */
export function loadTaskSchedulerEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(taskSchedulerEnv, env);
}
