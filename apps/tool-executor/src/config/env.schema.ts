import { z } from 'zod';
import { booleanFlag, httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';
import { DEFAULT_TASK_WORKER_OPTIONS } from '../tasks/tasks.constants';

/** The tool executor's environment (`.env.example` beside the app lists every key). */
export const toolExecutorEnv = {
  ...natsEnv,
  ...postgresEnv,
  ...httpEnv(3102),
  ...logEnv,
  /** Lets HTTP tools call loopback/private/link-local addresses (SSRF guard off for those ranges). */
  TOOL_HTTP_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Writes the `demo` and `conformance` tenants at boot (idempotent). */
  SEED_CATALOG: booleanFlag.default(true),
  /** Task runs in progress at once on this replica. */
  TASK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_TASK_WORKER_OPTIONS.concurrency),
  /** Deliveries of a task run's job before the queue gives up (the task then fails); the same on every replica. */
  TASK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_TASK_WORKER_OPTIONS.maxAttempts),
  /** A task run whose replica stops confirming it this long (it died) goes to another one; the same on every replica. */
  TASK_ACK_WAIT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(DEFAULT_TASK_WORKER_OPTIONS.ackWaitMs),
};

export type ToolExecutorEnv = ReturnType<typeof loadToolExecutorEnv>;

/** The one place this app reads `process.env`. */
export function loadToolExecutorEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(toolExecutorEnv, env);
}
