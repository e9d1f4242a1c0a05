import { afterEach, describe, expect, it } from 'vitest';
import { MemoryKeyValueFactory } from '@mcp-platform/shared-messaging';
import { SessionStore } from './session.store';

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

describe('SessionStore', () => {
  const stores: SessionStore[] = [];
  const open = async (keyValue: MemoryKeyValueFactory, now: () => number = Date.now): Promise<SessionStore> => {
    const store = await SessionStore.open(keyValue, { ttlMs: 60_000, now });
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
});
