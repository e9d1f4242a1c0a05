/** The named TypeORM connection of this app (several apps share one process in embedded mode). */
export const RESOURCE_STORE_CONNECTION = 'resource-store';

/** The app's own Postgres schema. */
export const RESOURCE_STORE_SCHEMA = 'resource_store';

/** Default per-tenant limit of stored resource content: 100 MiB. */
export const DEFAULT_TENANT_QUOTA_BYTES = 100 * 1024 * 1024;

/** Default per-resource limit of stored content: 16 MiB (content over 512 KiB arrives as a chunked upload). */
export const DEFAULT_MAX_RESOURCE_BYTES = 16 * 1024 * 1024;

/** The most a resource may hold whatever the configuration: sizes are `integer` columns. */
export const MAX_CONFIGURABLE_RESOURCE_BYTES = 2 ** 31 - 1;

/** An upload without an append for this long is abandoned: the next sweep drops it and its chunks. */
export const UPLOAD_IDLE_TIMEOUT_MS = 15 * 60 * 1000;

/** How often each replica sweeps abandoned uploads (every upload begun sweeps too). */
export const UPLOAD_SWEEP_INTERVAL_MS = 60 * 1000;
