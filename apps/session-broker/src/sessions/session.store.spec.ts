import { afterEach, describe, expect, it } from 'vitest';
import { type KeyValueChange, type KeyValueEntry, KeyValueFactory, KeyValueStore, MemoryKeyValueFactory } from '@mcp-platform/shared-messaging';
import { callerOf, SessionStore } from './session.store';

const fields = {
  tenant: 'demo',
  server: 'default',
  subject: 'user-1',
  clientId: 'client-1',
  anonymous: false,
  protocolVersion: '2025-06-18',
  clientCapabilities: {},
  clientInfo: { name: 'test', version: '1' },
};

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One bucket whose watch echoes writes only when told to, like a slow JetStream watch. */
class LateEchoKeyValue extends KeyValueFactory {
  readonly held: KeyValueChange[] = [];
  private readonly entries = new Map<string, KeyValueEntry>();
  private readonly listeners: Array<(change: KeyValueChange) => void> = [];
  private revision = 0;

  async open(): Promise<KeyValueStore> {
    const { entries, held, listeners } = this;
    const next = (): number => ++this.revision;
    return new (class extends KeyValueStore {
      async get(key: string) {
        return entries.get(key);
      }
      async put(key: string, value: string) {
        const revision = next();
        entries.set(key, { value, revision });
        held.push({ key, value, revision });
        return revision;
      }
      async create(key: string, value: string) {
        return entries.has(key) ? undefined : this.put(key, value);
      }
      async update(key: string, value: string, revision: number) {
        return entries.get(key)?.revision === revision ? this.put(key, value) : undefined;
      }
      async delete(key: string) {
        entries.delete(key);
        held.push({ key, revision: next() });
      }
      async watch(listener: (change: KeyValueChange) => void) {
        listeners.push(listener);
        return { stop: () => undefined };
      }
    })();
  }

  /** Delivers the oldest `count` held changes (all by default) to every watcher, in write order. */
  flush(count = this.held.length): void {
    for (const change of this.held.splice(0, count)) for (const listener of this.listeners) listener(change);
  }
}

describe('SessionStore', () => {
  const stores: SessionStore[] = [];
  const open = async (keyValue: KeyValueFactory, now: () => number = Date.now, maxMirrored?: number): Promise<SessionStore> => {
    const store = await SessionStore.open(keyValue, { ttlMs: 60_000, now, ...(maxMirrored === undefined ? {} : { maxMirrored }) });
    stores.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
  });

  describe('create', () => {
    it('mints a random visible-ASCII id and stores the session uninitialized', async () => {
      const store = await open(new MemoryKeyValueFactory());
      const { id, session } = await store.create(fields);
      expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(session.initialized).toBe(false);
      await expect(store.get(id)).resolves.toMatchObject(fields);
    });
  });

  describe('get', () => {
    it('serves a session created by another replica (shared bucket)', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await expect(second.get(id)).resolves.toMatchObject({ tenant: 'demo' });
    });

    it('answers undefined for unknown and malformed ids without a look-up', async () => {
      const store = await open(new MemoryKeyValueFactory());
      await expect(store.get('A'.repeat(32))).resolves.toBeUndefined();
      await expect(store.get('bad.id>*')).resolves.toBeUndefined();
    });
  });

  describe('update', () => {
    it('propagates a new log level to the other replica through the watch', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await second.get(id);
      await first.update(id, { logLevel: 'debug', initialized: true });
      await settle();
      await expect(second.get(id)).resolves.toMatchObject({ logLevel: 'debug', initialized: true });
    });

    it('computes a change from the freshest copy, so concurrent changes on one replica all land', async () => {
      const store = await open(new MemoryKeyValueFactory());
      const { id } = await store.create(fields);
      const add = (uri: string) => store.update(id, (current) => ({ subscriptions: [...(current.subscriptions ?? []), uri] }));
      await Promise.all([add('demo://a'), add('demo://b'), add('demo://c')]);
      await expect(store.get(id)).resolves.toMatchObject({ subscriptions: ['demo://a', 'demo://b', 'demo://c'] });
    });

    it('is not undone by the late echo of its own earlier writes', async () => {
      const keyValue = new LateEchoKeyValue();
      const store = await open(keyValue);
      const { id } = await store.create(fields);
      const add = (uri: string) => store.update(id, (current) => ({ subscriptions: [...(current.subscriptions ?? []), uri] }));
      await add('demo://a');
      await add('demo://b');
      // The echoes of create, a and b arrive now, after b: the mirror must keep b.
      keyValue.flush(2);
      await add('demo://c');
      expect(store.isSubscribed(id, 'demo://b')).toBe(true);
      keyValue.flush();
      await expect(store.get(id)).resolves.toMatchObject({ subscriptions: ['demo://a', 'demo://b', 'demo://c'] });
    });

    it('takes a write of another replica when the watch delivers it', async () => {
      const keyValue = new LateEchoKeyValue();
      const store = await open(keyValue);
      const other = await open(keyValue);
      const { id } = await store.create(fields);
      keyValue.flush();
      await other.get(id);
      await other.update(id, { subscriptions: ['demo://x'] });
      expect(store.isSubscribed(id, 'demo://x')).toBe(false);
      keyValue.flush();
      expect(store.isSubscribed(id, 'demo://x')).toBe(true);
    });

    it('lands changes two replicas make at the same instant, each from its own stale copy (compare-and-set)', async () => {
      const keyValue = new LateEchoKeyValue();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await second.get(id);
      const add = (store: SessionStore, uri: string) => store.update(id, (current) => ({ subscriptions: [...(current.subscriptions ?? []), uri] }));
      // Neither replica's watch has delivered anything: each computes from the copy it read.
      await Promise.all([add(first, 'demo://a'), add(second, 'demo://b'), add(first, 'demo://c'), add(second, 'demo://d')]);
      keyValue.flush();
      for (const store of [first, second]) {
        for (const uri of ['demo://a', 'demo://b', 'demo://c', 'demo://d']) expect(store.isSubscribed(id, uri), uri).toBe(true);
      }
    });

    it('gives up, loudly, on a session that keeps changing under it', async () => {
      const keyValue = new LateEchoKeyValue();
      const store = await open(keyValue);
      const bucket = await keyValue.open();
      const { id } = await store.create(fields);
      // Another writer lands a write while every attempt computes, so each compare-and-set fails.
      const update = store.update(id, (current) => {
        void bucket.put(id, JSON.stringify({ ...current, logLevel: current.logLevel === 'info' ? 'debug' : 'info' }));
        return { initialized: true };
      });
      await expect(update).rejects.toThrow(/kept changing/);
    });

    it('answers undefined for a session deleted meanwhile', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const store = await open(keyValue);
      const other = await open(keyValue);
      const { id } = await store.create(fields);
      await other.delete(id);
      await expect(store.update(id, { initialized: true })).resolves.toBeUndefined();
    });

    it('writes nothing when the change function answers undefined', async () => {
      let time = 1_000;
      const store = await open(new MemoryKeyValueFactory(), () => time);
      const { id } = await store.create(fields);
      time = 2_000;
      await expect(store.update(id, () => undefined)).resolves.toMatchObject({ touchedAt: 1_000 });
    });
  });

  describe('isSubscribed', () => {
    it('answers from the mirror, with subscriptions made on another replica', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await second.get(id);
      expect(second.isSubscribed(id, 'demo://a')).toBe(false);
      await first.update(id, { subscriptions: ['demo://a'] });
      await settle();
      expect(second.isSubscribed(id, 'demo://a')).toBe(true);
      expect(second.isSubscribed(id, 'demo://b')).toBe(false);
      expect(second.isSubscribed('B'.repeat(32), 'demo://a')).toBe(false);
    });
  });

  describe('delete', () => {
    it('ends the session on every replica', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await second.get(id);
      await second.delete(id);
      await settle();
      await expect(first.get(id)).resolves.toBeUndefined();
      await expect(second.get(id)).resolves.toBeUndefined();
    });
  });

  describe('count', () => {
    const ALICE = callerOf(fields);

    it('counts every replica’s sessions by caller and tenant once the watch delivered them, and forgets ended ones', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const first = await open(keyValue);
      const second = await open(keyValue);
      const { id } = await first.create(fields);
      await first.create(fields);
      await first.create({ ...fields, tenant: 'other' });
      const { clientId: _none, ...anonymousFields } = fields;
      await first.create({ ...anonymousFields, subject: 'anonymous', anonymous: true, clientAddress: '203.0.113.7' });
      await settle();
      expect(second.count('demo', ALICE)).toEqual({ caller: 2, tenant: 3, total: 4 });
      await first.delete(id);
      await settle();
      expect(second.count('demo', ALICE)).toEqual({ caller: 1, tenant: 2, total: 3 });
      expect(second.count('demo', callerOf({ ...fields, anonymous: true, clientAddress: '203.0.113.7' }))).toMatchObject({ caller: 1 });
    });

    it('counts a user’s sessions as one caller whichever OAuth client opened them: clients register for free (DCR, CIMD), so a per-client count has no cap', async () => {
      const store = await open(new MemoryKeyValueFactory());
      await store.create(fields);
      await store.create({ ...fields, clientId: 'registered-a-minute-ago' });
      await store.create({ ...fields, clientId: 'https://attacker.example/client.json' });
      await settle();
      expect(store.count('demo', ALICE)).toMatchObject({ caller: 3 });
      const viaAnotherClient = { ...fields, clientId: 'yet-another' };
      expect(store.sessionsOf(callerOf(viaAnotherClient))).toHaveLength(3);
      // Another user of the tenant is another caller.
      expect(store.count('demo', callerOf({ ...fields, subject: 'bob' }))).toMatchObject({ caller: 0, tenant: 3 });
    });

    it('holds no more sessions in the mirror than it may, and still serves the others from the bucket', async () => {
      const keyValue = new MemoryKeyValueFactory();
      const writer = await open(keyValue);
      const bounded = await open(keyValue, Date.now, 2);
      const ids: string[] = [];
      for (let index = 0; index < 4; index += 1) ids.push((await writer.create(fields)).id);
      await settle();
      expect(bounded.count('demo', ALICE).total).toBe(2);
      for (const id of ids) await expect(bounded.get(id)).resolves.toMatchObject({ tenant: 'demo' });
      expect(bounded.count('demo', ALICE).total).toBe(2);
    });
  });

  describe('sessionsOf', () => {
    it('lists a caller’s sessions least recently used first, a session in use rewritten now and then (here every half TTL, 30 s)', async () => {
      let time = 1_000_000;
      const store = await open(new MemoryKeyValueFactory(), () => time);
      const { id: older } = await store.create(fields);
      time += 1_000;
      const { id: newer } = await store.create(fields);
      expect(store.sessionsOf(callerOf(fields)).map((use) => use.id)).toEqual([older, newer]);
      time += 20_000;
      await store.get(older);
      await settle();
      // Used, but within 30 s of its last write: not rewritten yet.
      expect(store.sessionsOf(callerOf(fields)).map((use) => use.id)).toEqual([older, newer]);
      time += 15_000;
      await store.get(older);
      await settle();
      await settle();
      expect(store.sessionsOf(callerOf(fields)).map((use) => use.id)).toEqual([newer, older]);
    });
  });
});
