import { z } from 'zod';
import { booleanFlag, httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';
import {
  DEFAULT_MAX_RESOURCE_BYTES,
  DEFAULT_READ_CACHE_ENTRIES,
  DEFAULT_TENANT_QUOTA_BYTES,
  MAX_CONFIGURABLE_RESOURCE_BYTES,
} from '../resource-store.constants';

/** The resource store's environment (`.env.example` beside the app lists every key). */
export const resourceStoreEnv = {
  ...natsEnv,
  ...postgresEnv,
  ...httpEnv(3103),
  ...logEnv,
  /** Writes the `conformance` and `demo` fixtures at boot (idempotent). */
  SEED: booleanFlag.default(true),
  /** Bytes of resource content one tenant may store (default 100 MiB). */
  RESOURCE_STORE_TENANT_QUOTA_BYTES: z.coerce.number().int().positive().default(DEFAULT_TENANT_QUOTA_BYTES),
  /** Bytes of content one resource may hold (default 16 MiB); the tenant quota applies too. */
  RESOURCE_STORE_MAX_RESOURCE_BYTES: z.coerce.number().int().positive().max(MAX_CONFIGURABLE_RESOURCE_BYTES).default(DEFAULT_MAX_RESOURCE_BYTES),
  /** Entries of this replica's cache of small resources/read answers (default 5 000; 0 disables it). */
  RESOURCE_STORE_READ_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_READ_CACHE_ENTRIES),
};

export type ResourceStoreEnv = ReturnType<typeof loadResourceStoreEnv>;

/** The one place this app reads `process.env`. */
export function loadResourceStoreEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(resourceStoreEnv, env);
}
