import { z } from 'zod';
import { booleanFlag, httpEnv, loadEnv, logEnv } from '@mcp-platform/shared-config';

const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean));

/** PGlite's own spelling for "no directory": the catalog lives in memory and goes with the process. */
export const IN_MEMORY_DATA_DIR = 'memory://';

/** The embedded platform's environment (`.env.example` beside the app lists every key). */
export const standaloneEnv = {
  ...httpEnv(3000),
  ...logEnv,
  /** The base URL clients use; default `http://<HOST>:<PORT>`. */
  PUBLIC_URL: z.string().url().optional(),
  /** Allowed `Host` header values (`host:port`, `host:*`); default: PUBLIC_URL's host plus the loopback names at PORT. */
  ALLOWED_HOSTS: commaList,
  /** Allowed `Origin` values; default: PUBLIC_URL's origin plus the loopback origins at PORT. */
  ALLOWED_ORIGINS: commaList,
  /** Largest accepted POST body in bytes (413 above it). */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  /**
   * Where PGlite keeps the database; absent or `memory://` keeps it in memory. In memory by default:
   * today the catalog is only the seed, rewritten at every start, and tools that spawn this binary
   * (tests, the conformance runner) must never share one directory (PGlite takes no lock). Set it
   * (e.g. `./data`, git-ignored) to keep state across restarts.
   */
  DATA_DIR: z.string().min(1).optional(),
  /** Lets HTTP tools call loopback/private/link-local addresses (the SSRF guard refuses them otherwise). */
  TOOL_HTTP_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
};

export type StandaloneEnv = ReturnType<typeof loadStandaloneEnv>;

/** The one place this app reads `process.env`. */
export function loadStandaloneEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(standaloneEnv, env);
}
