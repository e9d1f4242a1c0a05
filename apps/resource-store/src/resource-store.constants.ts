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

/** Default bound of the read cache's entries per replica (`RESOURCE_STORE_READ_CACHE_ENTRIES`; 0 disables it). */
export const DEFAULT_READ_CACHE_ENTRIES = 5_000;

/** Bound of the read cache's memory per replica, estimated as the JSON length of its entries: 32 MiB. */
export const READ_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** One read cache entry (a server's template list, mostly) over this is not kept: 1 MiB. */
export const READ_CACHE_MAX_ENTRY_BYTES = 1024 * 1024;

/** Only contents up to this size are kept by the read cache (larger and chunked reads always query): 64 KiB. */
export const READ_CACHE_MAX_CONTENT_BYTES = 64 * 1024;

/**
 * How long a read cache entry may be served. Writes on the replica and the store's change events drop
 * entries at once; this bounds the staleness left by a lost event (core NATS is at-most-once). Keep it
 * under `READ_TTL_MS`, the reuse a read's own `ttlMs` hint allows clients anyway.
 */
export const READ_CACHE_TTL_MS = 5_000;
