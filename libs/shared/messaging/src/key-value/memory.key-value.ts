import { type KeyValueBucketOptions, type KeyValueChange, type KeyValueEntry, KeyValueFactory, KeyValueStore } from './key-value.store';

interface Entry extends KeyValueEntry {
  expiresAt: number;
}

class MemoryKeyValueStore extends KeyValueStore {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(change: KeyValueChange) => void>();
  /** The bucket's last revision, like a JetStream stream's sequence. */
  private revision = 0;

  constructor(private readonly ttlMs: number) {
    super();
  }

  async get(key: string): Promise<KeyValueEntry | undefined> {
    const entry = this.live(key);
    return entry && { value: entry.value, revision: entry.revision };
  }

  async put(key: string, value: string): Promise<number> {
    const now = Date.now();
    this.expireOldest(now);
    const revision = ++this.revision;
    // Re-inserted, so the map stays in order of last write: with one TTL for the bucket, the entries
    // that expire first are at its front.
    this.entries.delete(key);
    this.entries.set(key, { value, revision, expiresAt: this.ttlMs ? now + this.ttlMs : Number.POSITIVE_INFINITY });
    this.notify({ key, value, revision });
    return revision;
  }

  async create(key: string, value: string): Promise<number | undefined> {
    if (this.live(key)) return undefined;
    return this.put(key, value);
  }

  async update(key: string, value: string, revision: number): Promise<number | undefined> {
    if (this.live(key)?.revision !== revision) return undefined;
    return this.put(key, value);
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
    this.notify({ key, revision: ++this.revision });
  }

  async watch(listener: (change: KeyValueChange) => void): Promise<{ stop(): void }> {
    this.listeners.add(listener);
    return { stop: () => this.listeners.delete(listener) };
  }

  /**
   * Drops the expired entries at the front (announced like deletes), so a bucket written often but read
   * rarely (sessions nobody comes back to) does not keep what expired until the process ends.
   */
  private expireOldest(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.entries.delete(key);
      this.notify({ key, revision: ++this.revision });
    }
  }

  /** The entry, unless it expired (an expiry is announced like a delete). */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt > Date.now()) return entry;
    this.entries.delete(key);
    this.notify({ key, revision: ++this.revision });
    return undefined;
  }

  private notify(change: KeyValueChange): void {
    for (const listener of this.listeners) queueMicrotask(() => listener(change));
  }
}

/** Embedded-mode buckets: one map per bucket name, shared by everything in the process. */
export class MemoryKeyValueFactory extends KeyValueFactory {
  private readonly buckets = new Map<string, MemoryKeyValueStore>();

  async open(bucket: string, options: KeyValueBucketOptions = {}): Promise<KeyValueStore> {
    let store = this.buckets.get(bucket);
    if (!store) {
      store = new MemoryKeyValueStore(options.ttlMs ?? 0);
      this.buckets.set(bucket, store);
    }
    return store;
  }
}
