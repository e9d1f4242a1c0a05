import { z } from 'zod';
import { BOOTSTRAP_ADMIN_KEYS, booleanFlag, bootstrapAdminEnv, httpEnv, loadEnv, logEnv } from '@mcp-platform/shared-config';
import { mcpEdgeEnv } from '@mcp-platform/session-broker';

/** PGlite's own spelling for "no directory": the catalog lives in memory and goes with the process. */
export const IN_MEMORY_DATA_DIR = 'memory://';

/** The embedded platform's environment (`.env.example` beside the app lists every key). */
export const standaloneEnv = {
  ...httpEnv(3000),
  ...logEnv,
  ...mcpEdgeEnv,
  /**
   * Where PGlite keeps the database; absent or `memory://` keeps it in memory. In memory by default:
   * today the catalog is only the seed, rewritten at every start, and tools that spawn this binary
   * (tests, the conformance runner) must never share one directory (PGlite takes no lock). Set it
   * (e.g. `./data`, git-ignored) to keep state across restarts.
   */
  DATA_DIR: z.string().min(1).optional(),
  /** Lets HTTP tools call loopback/private/link-local addresses (the SSRF guard refuses them otherwise). */
  TOOL_HTTP_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  /** The seeded demo user's password; absent: a fresh random one at every start, printed in the banner. */
  DEMO_USER_PASSWORD: z.string().min(12).optional(),
  /** A platform admin created at start when none exists (both or neither). */
  ...bootstrapAdminEnv,
};

export type StandaloneEnv = ReturnType<typeof loadStandaloneEnv>;

/** The one place this app reads `process.env`. */
export function loadStandaloneEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(standaloneEnv, env, { together: [BOOTSTRAP_ADMIN_KEYS] });
}
