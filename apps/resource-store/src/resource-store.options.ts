import type { DatabaseOptions } from '@mcp-platform/shared-persistence';

/** How the resource store runs: where its tables live, whether to seed them, how much each tenant may store. */
export interface ResourceStoreOptions {
  database: DatabaseOptions;
  /** Write the `conformance` and `demo` fixtures at boot (idempotent). */
  seed: boolean;
  /** Upper bound of the resource content one tenant stores, in bytes (default 100 MiB). */
  tenantQuotaBytes?: number;
}

/** Injection token of the effective per-tenant quota (a number of bytes). */
export const TENANT_QUOTA_BYTES = Symbol('TENANT_QUOTA_BYTES');
