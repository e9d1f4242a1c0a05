import { z } from 'zod';
import { booleanFlag, commaList, emptyAsUnset, httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';
import { DEFAULT_TASK_WORKER_OPTIONS } from '../tasks/tasks.constants';
import { parseStdioServers } from '../upstreams/stdio-servers';
import type { UpstreamOptions } from '../upstreams/upstreams.constants';

/** How the executor reaches upstream MCP servers (issue 15); the embedded host reads the same keys. */
export const upstreamEnv = {
  /** Lets upstream MCP servers' URLs reach loopback/private/link-local addresses (SSRF guard off for those ranges). */
  UPSTREAM_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Host names upstream URLs may reach although they resolve to private addresses (comma-separated). */
  UPSTREAM_ALLOWED_HOSTS: commaList,
  /**
   * The stdio MCP servers tenants may run, as JSON: `{ "<name>": { "command", "args", "env", "params" } }`
   * (see the tool executor's README). Tenants pick an entry and fill its parameters; never a command.
   */
  UPSTREAM_STDIO_SERVERS: emptyAsUnset(z.string().max(1_000_000)),
  /** The PATH stdio servers get, and their commands are looked up in (nothing else of the executor's environment reaches them). */
  UPSTREAM_STDIO_PATH: z.string().min(1).default('/usr/local/bin:/usr/bin:/bin'),
  /** Seconds between background reads of each upstream's catalog (what changed without `list_changed`, a source that was down; a failed read is retried sooner); 0: never. */
  UPSTREAM_RESYNC_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(15 * 60),
  /** The secret the sealing key of tool sources' secrets derives from (headers, client secrets…); unset: none can be stored. */
  TOOL_SECRETS_KEY: emptyAsUnset(z.string().min(16, 'at least 16 characters')),
};

/** The upstream options of an environment holding `upstreamEnv`'s keys; an invalid stdio allow-list stops the start. */
export function upstreamOptionsOf(env: {
  UPSTREAM_ALLOW_PRIVATE_NETWORKS: boolean;
  UPSTREAM_ALLOWED_HOSTS: string[];
  UPSTREAM_STDIO_SERVERS?: string | undefined;
  UPSTREAM_STDIO_PATH: string;
  UPSTREAM_RESYNC_SECONDS: number;
  TOOL_SECRETS_KEY?: string | undefined;
}): Partial<UpstreamOptions> {
  return {
    allowPrivateNetworks: env.UPSTREAM_ALLOW_PRIVATE_NETWORKS,
    allowedHosts: env.UPSTREAM_ALLOWED_HOSTS,
    stdioServers: parseStdioServers(env.UPSTREAM_STDIO_SERVERS),
    stdioPath: env.UPSTREAM_STDIO_PATH,
    resyncMs: env.UPSTREAM_RESYNC_SECONDS * 1_000,
    ...(env.TOOL_SECRETS_KEY ? { secretsKey: env.TOOL_SECRETS_KEY } : {}),
  };
}

/** The tool executor's environment (`.env.example` beside the app lists every key). */
export const toolExecutorEnv = {
  ...natsEnv,
  ...postgresEnv,
  ...httpEnv(3102),
  ...logEnv,
  /** Lets HTTP tools call loopback/private/link-local addresses (SSRF guard off for those ranges). */
  TOOL_HTTP_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  ...upstreamEnv,
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
