import { z } from 'zod';
import { mcpEdgeEnv } from '@mcp-platform/session-broker';
import { booleanFlag, BOOTSTRAP_ADMIN_KEYS, bootstrapAdminEnv, httpEnv, loadEnv, logEnv } from '@mcp-platform/shared-config';
import { upstreamEnv } from '@mcp-platform/tool-executor';

/** PGlite's own spelling for "no directory": everything lives in memory and goes with the process. */
export const IN_MEMORY_DATA_DIR = 'memory://';

/** Where `npm start` keeps its data unless told otherwise: `data/` of the working directory (git-ignored). */
export const DEFAULT_DATA_DIR = './data';

/** The embedded platform's environment (`.env.example` beside the app lists every key). */
export const standaloneEnv = {
  ...httpEnv(3000),
  ...logEnv,
  ...mcpEdgeEnv,
  /**
   * The data directory: the database (tenants, users, registered clients, grants, signing keys, the
   * catalog) and the secrets generated once (the demo password, the request state key), locked while
   * the platform runs. `memory://` keeps everything in memory, gone at stop (tests, throw-away runs).
   */
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  /** Lets HTTP tools call loopback/private/link-local addresses (the SSRF guard refuses them otherwise). */
  TOOL_HTTP_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** Upstream MCP servers: private networks, allowed hosts, the stdio allow-list, the secrets key (the tool executor's keys). */
  ...upstreamEnv,
  /** The seeded demo user's password; absent: one generated once and kept in the data directory (printed at every start). */
  DEMO_USER_PASSWORD: z.string().min(12).optional(),
  /** A platform admin created at start when none exists (both or neither). */
  ...bootstrapAdminEnv,
};

export type StandaloneEnv = ReturnType<typeof loadStandaloneEnv>;

/** The one place this app reads `process.env`. */
export function loadStandaloneEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(standaloneEnv, env, { together: [BOOTSTRAP_ADMIN_KEYS] });
}
