import type { Clock } from '@mcp-platform/shared-clock';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';

/** How the task scheduler runs: where its table lives, and the limits it puts on tasks. */
export interface TaskSchedulerOptions {
  database: DatabaseOptions;
  /** TTL of a task whose client asked for none, in seconds (default 3 600; never above the maximum). */
  defaultTtlSeconds?: number;
  /** The longest TTL a task gets, in seconds (default 86 400). */
  maxTtlSeconds?: number;
  /** The poll interval suggested to clients, in ms (default 1 000). */
  pollIntervalMs?: number;
  /** Runs of one tenant's tasks in progress at once (default 8). */
  tenantConcurrency?: number;
  /** The time the scheduler reads (default: the system clock); tests move it to expire tasks. */
  clock?: Clock;
}
