import { z } from 'zod';
import { booleanFlag, httpEnv, loadEnv, logEnv, natsEnv, postgresEnv } from '@mcp-platform/shared-config';
import { DEFAULT_TENANT_QUOTA_BYTES } from '../resource-store.constants';

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
};

export type ResourceStoreEnv = ReturnType<typeof loadResourceStoreEnv>;

/** The one place this app reads `process.env`. */
export function loadResourceStoreEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(resourceStoreEnv, env);
}
