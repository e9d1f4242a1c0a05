/** The named TypeORM connection of this app (several apps share one process in embedded mode). */
export const RESOURCE_STORE_CONNECTION = 'resource-store';

/** The app's own Postgres schema. */
export const RESOURCE_STORE_SCHEMA = 'resource_store';

/** Default per-tenant limit of stored resource content: 100 MiB. */
export const DEFAULT_TENANT_QUOTA_BYTES = 100 * 1024 * 1024;
