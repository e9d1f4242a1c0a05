import type { DatabaseOptions } from '@mcp-platform/shared-persistence';

/** How the resource store runs: where its tables live, whether to seed them, how much each tenant may store. */
export interface ResourceStoreOptions {
  database: DatabaseOptions;
  /** Write the `conformance` and `demo` fixtures at boot (idempotent). */
  seed: boolean;
  /** Upper bound of the resource content one tenant stores, in bytes (default 100 MiB). */
  tenantQuotaBytes?: number;
  /** Upper bound of one resource's content, in bytes (default 16 MiB); larger uploads are refused. */
  maxResourceBytes?: number;
  /** Entries of the per-replica read cache of small `resources/read` answers (default 5 000); 0 disables it. */
  readCacheEntries?: number;
}

/** The store's size limits, in bytes, as the resources module is given them. */
export interface ResourceLimits {
  tenantQuotaBytes: number;
  maxResourceBytes: number;
  /** Upper bound of a skill's uploaded archive (`SKILL_LIMITS.maxArchiveBytes` of `skills/`). */
  maxSkillArchiveBytes: number;
}

/** Injection token of the effective `ResourceLimits`. */
export const RESOURCE_LIMITS = Symbol('RESOURCE_LIMITS');
