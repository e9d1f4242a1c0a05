import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import type { UpstreamOptions } from './upstreams/upstreams.constants';

/** How the tool executor runs: where its catalog lives, whether to seed it, how HTTP tools may reach out, how it runs tasks. */
export interface ToolExecutorOptions {
  database: DatabaseOptions;
  /** Write the `demo` and `conformance` tenants at boot (idempotent). */
  seed: boolean;
  http: {
    /** Let HTTP tools reach loopback/private/link-local networks (the SSRF guard refuses them otherwise). */
    allowPrivateNetworks: boolean;
    /** Upper bound for one HTTP tool request, whatever the tool's own setting (default 30 s). */
    timeoutMs?: number;
  };
  /** How upstream MCP servers are reached (defaults: `DEFAULT_UPSTREAM_OPTIONS`: no private networks, no stdio servers, no secrets key). */
  upstreams?: Partial<UpstreamOptions>;
  /** How this replica works the queue of task runs (default `DEFAULT_TASK_WORKER_OPTIONS`). */
  tasks?: TaskWorkerOptions;
}

/**
 * How a replica works the queue of task runs. Every replica should use the same `maxAttempts` and
 * `ackWaitMs`: over NATS the last replica to start sets them for all.
 */
export interface TaskWorkerOptions {
  /** Task runs in progress at once on this replica. */
  concurrency: number;
  /** Deliveries of a run's job before the queue gives up (the scheduler then fails the task). */
  maxAttempts: number;
  /** A job whose replica stops confirming it for this long (it died) is delivered again. */
  ackWaitMs: number;
}
