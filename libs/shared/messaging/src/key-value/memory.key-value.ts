import { KeyValueFactory, KeyValueStore, type KeyValueBucketOptions, type KeyValueChange } from './key-value.store';

interface Entry {
  value: string;
  expiresAt: number;
}

class MemoryKeyValueStore extends KeyValueStore {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(change: KeyValueChange) => void>();

  constructor(private readonly ttlMs: number) {
    super();
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      this.notify({ key });
      return undefined;
    }
    return entry.value;
  }

  async put(key: string, value: string): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.ttlMs ? Date.now() + this.ttlMs : Number.POSITIVE_INFINITY });
    this.notify({ key, value });
  }

  async create(key: string, value: string): Promise<boolean> {
    if ((await this.get(key)) !== undefined) return false;
    await this.put(key, value);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
    this.notify({ key });
  }

  async watch(listener: (change: KeyValueChange) => void): Promise<{ stop(): void }> {
    this.listeners.add(listener);
    return { stop: () => this.listeners.delete(listener) };
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
