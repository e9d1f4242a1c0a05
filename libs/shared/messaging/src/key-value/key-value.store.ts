/** One change seen by a watcher of a bucket. */
export interface KeyValueChange {
  key: string;
  /** The new value; absent when the key was deleted or expired. */
  value?: string;
  /** The bucket's revision of this change: later changes of a key always have higher revisions. */
  revision: number;
}

/** A value with the revision that wrote it (the token {@link KeyValueStore.update} compares). */
export interface KeyValueEntry {
  value: string;
  revision: number;
}

/**
 * A replicated key/value bucket (NATS JetStream KV in distributed mode, a map in embedded mode).
 * Keys are NATS-subject-safe tokens (`[A-Za-z0-9_=-]` and `.`). Every write gets a revision that
 * grows with each write to the bucket, so writers can compare-and-set and readers can tell an older
 * value from a newer one.
 */
export abstract class KeyValueStore {
  abstract get(key: string): Promise<KeyValueEntry | undefined>;
  /** Writes unconditionally; resolves the new revision. */
  abstract put(key: string, value: string): Promise<number>;
  /** Writes only if the key does not exist yet; resolves the new revision, or `undefined` when it did. */
  abstract create(key: string, value: string): Promise<number | undefined>;
  /**
   * Writes only if the key's latest revision is still `revision` (compare-and-set); resolves the new
   * revision, or `undefined` when someone wrote or deleted the key since.
   */
  abstract update(key: string, value: string, revision: number): Promise<number | undefined>;
  abstract delete(key: string): Promise<void>;
  /** Calls the listener for every later change, from any writer anywhere; stop() ends the watch. */
  abstract watch(listener: (change: KeyValueChange) => void): Promise<{ stop(): void }>;
}

export interface KeyValueBucketOptions {
  /** Entries expire this long after their last write (0 or absent: never). */
  ttlMs?: number;
}

/** Opens buckets on the configured backend. Inject it as `KeyValueFactory`. */
export abstract class KeyValueFactory {
  abstract open(bucket: string, options?: KeyValueBucketOptions): Promise<KeyValueStore>;
}
