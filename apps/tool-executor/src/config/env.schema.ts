import { booleanFlag, httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';

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
};

export type ToolExecutorEnv = ReturnType<typeof loadToolExecutorEnv>;

/** The one place this app reads `process.env`. */
export function loadToolExecutorEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(toolExecutorEnv, env);
}
