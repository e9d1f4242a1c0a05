import type { KV, NatsConnection } from 'nats';
import { type KeyValueBucketOptions, type KeyValueChange, type KeyValueEntry, KeyValueFactory, KeyValueStore } from './key-value.store';

/** JetStream's answer when a conditional write finds another last revision (or an existing key). */
const CONFLICT = /wrong last sequence|key exists/i;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

class NatsKeyValueStore extends KeyValueStore {
  constructor(private readonly kv: KV) {
    super();
  }

  async get(key: string): Promise<KeyValueEntry | undefined> {
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') return undefined;
    return { value: decoder.decode(entry.value), revision: entry.revision };
  }

  put(key: string, value: string): Promise<number> {
    return this.kv.put(key, encoder.encode(value));
  }

  create(key: string, value: string): Promise<number | undefined> {
    return conditional(this.kv.create(key, encoder.encode(value)));
  }

  update(key: string, value: string, revision: number): Promise<number | undefined> {
    return conditional(this.kv.update(key, encoder.encode(value), revision));
  }

  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }

  async watch(listener: (change: KeyValueChange) => void): Promise<{ stop(): void }> {
    const iterator = await this.kv.watch({ include: 'updates' as never });
    void (async () => {
      for await (const entry of iterator) {
        listener(
          entry.operation === 'PUT'
            ? { key: entry.key, value: decoder.decode(entry.value), revision: entry.revision }
            : { key: entry.key, revision: entry.revision },
        );
      }
    })();
    return { stop: () => iterator.stop() };
  }
}

/** A conditional write's revision, or `undefined` when JetStream refused it for a conflict. */
async function conditional(write: Promise<number>): Promise<number | undefined> {
  try {
    return await write;
  } catch (error) {
    if (CONFLICT.test((error as Error).message)) return undefined;
    throw error;
  }
}

/** Distributed buckets on NATS JetStream KV; every replica sees every write. */
export class NatsKeyValueFactory extends KeyValueFactory {
  constructor(
    private readonly connection: NatsConnection,
    private readonly prefix = '',
  ) {
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
