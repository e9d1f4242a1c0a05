/** One change seen by a watcher of a bucket. */
export interface KeyValueChange {
  key: string;
  /** The new value; absent when the key was deleted or expired. */
  value?: string;
}

/**
 * A replicated key/value bucket (NATS JetStream KV in distributed mode, a map in embedded mode).
 * Keys are NATS-subject-safe tokens (`[A-Za-z0-9_=-]` and `.`).
 */
export abstract class KeyValueStore {
  abstract get(key: string): Promise<string | undefined>;
  abstract put(key: string, value: string): Promise<void>;
  /** Writes only if the key does not exist yet; resolves false when it did. */
  abstract create(key: string, value: string): Promise<boolean>;
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
