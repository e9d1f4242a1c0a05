import type { DatabaseOptions } from '@mcp-platform/shared-persistence';

/** How the tool executor runs: where its catalog lives, whether to seed it, how HTTP tools may reach out. */
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
}
