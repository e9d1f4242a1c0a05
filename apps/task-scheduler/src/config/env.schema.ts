import { httpEnv, loadEnv, logEnv, natsEnv } from '@mcp-platform/shared-config';

/** The task scheduler's environment (`.env.example` beside the app lists every key). */
export const taskSchedulerEnv = {
  ...natsEnv,
  ...httpEnv(3104),
  ...logEnv,
};

export type TaskSchedulerEnv = ReturnType<typeof loadTaskSchedulerEnv>;

/** The one place this app reads `process.env`. */
export function loadTaskSchedulerEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(taskSchedulerEnv, env);
}
