import type { KV, NatsConnection } from 'nats';
import { KeyValueFactory, KeyValueStore, type KeyValueBucketOptions, type KeyValueChange } from './key-value.store';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

class NatsKeyValueStore extends KeyValueStore {
  constructor(private readonly kv: KV) {
    super();
  }

  async get(key: string): Promise<string | undefined> {
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') return undefined;
    return decoder.decode(entry.value);
  }

  async put(key: string, value: string): Promise<void> {
    await this.kv.put(key, encoder.encode(value));
  }

  async create(key: string, value: string): Promise<boolean> {
    try {
      await this.kv.create(key, encoder.encode(value));
      return true;
    } catch (error) {
      // JetStream answers "wrong last sequence" when the key exists.
      if (/wrong last sequence|key exists/i.test((error as Error).message)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }

  async watch(listener: (change: KeyValueChange) => void): Promise<{ stop(): void }> {
    const iterator = await this.kv.watch({ include: 'updates' as never });
    void (async () => {
      for await (const entry of iterator) {
        listener(entry.operation === 'PUT' ? { key: entry.key, value: decoder.decode(entry.value) } : { key: entry.key });
      }
    })();
    return { stop: () => iterator.stop() };
  }
}

/** Distributed buckets on NATS JetStream KV; every replica sees every write. */
export class NatsKeyValueFactory extends KeyValueFactory {
  constructor(private readonly connection: NatsConnection, private readonly prefix = '') {
    super();
  }

  async open(bucket: string, options: KeyValueBucketOptions = {}): Promise<KeyValueStore> {
    const kv = await this.connection.jetstream().views.kv(`${this.prefix}${bucket}`, {
      history: 1,
      ...(options.ttlMs ? { ttl: options.ttlMs } : {}),
    });
    return new NatsKeyValueStore(kv);
  }
}
