import { Logger } from '@nestjs/common';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { ManualClock } from '@mcp-platform/shared-clock';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { resolveAuthorizationServerOptions } from '../authorization-server.options';
import type { SigningKeysRepository, SigningKeyStore, StoredSigningKey } from './signing-keys.repository';
import { SigningKeysService } from './signing-keys.service';

const DAY = 24 * 3600 * 1000;

/** The table in memory; the lock is a no-op (one replica). */
class FakeKeys {
  rows: StoredSigningKey[] = [];
  async list() {
    return this.rows.map((row) => ({ ...row }));
  }
  async withRotationLock<T>(work: (store: SigningKeyStore) => Promise<T>): Promise<T> {
    return work({
      list: () => this.list(),
      insert: async (key, now) => {
        this.rows.push({ ...key, createdAt: now, activatedAt: now, retiredAt: null });
      },
      retireAllExcept: async (keepKid, now) => {
        for (const row of this.rows) if (row.kid !== keepKid && row.retiredAt === null) row.retiredAt = now;
      },
      delete: async (kids) => {
        this.rows = this.rows.filter((row) => !kids.includes(row.kid));
      },
    });
  }
}

describe(SigningKeysService, () => {
  let clock: ManualClock;
  let keys: FakeKeys;
  let emitted: Array<{ subject: string; payload: unknown }>;
  const options = resolveAuthorizationServerOptions({
    database: { kind: 'pglite' },
    publicUrl: 'http://127.0.0.1:3101',
    mcpPublicUrl: 'http://127.0.0.1:3000',
    seed: false,
    keyRotationDays: 30,
  });

  const makeService = (secret?: string) =>
    new SigningKeysService(
      keys as unknown as SigningKeysRepository,
      { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus,
      clock,
      { ...options, keyEncryptionSecret: secret },
    );

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    keys = new FakeKeys();
    emitted = [];
  });

  it('creates an RS256 signer on first use and announces it', async () => {
    const service = makeService();
    const [signer, ...others] = await service.privateJwks();
    expect(others).toEqual([]);
    expect(signer).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: keys.rows[0]?.kid });
    expect(signer?.d).toBeTruthy();
    expect(emitted).toEqual([{ subject: authorizationServer.signingKeysRotated.subject, payload: { kids: [signer?.kid] } }]);
  });

  it('publishes public members only', async () => {
    const service = makeService();
    const [published] = await service.publicJwks();
    expect(published).toMatchObject({ kty: 'RSA', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(published).not.toHaveProperty(member);
    expect(authorizationServer.PublicJwkSchema.safeParse(published).success).toBe(true);
    await expect(service.signingKeySet()).resolves.toMatchObject({ issuer: 'http://127.0.0.1:3101/oauth' });
  });

  it('rotates: the new key signs, the old one stays published, listeners hear of it', async () => {
    const service = makeService();
    const [first] = await service.privateJwks();
    let notified = 0;
    service.onRotated(() => notified++);
    await service.rotate();
    const kids = (await service.privateJwks()).map((key) => key.kid);
    expect(kids).toHaveLength(2);
    expect(kids[0]).not.toBe(first?.kid);
    expect(kids[1]).toBe(first?.kid);
    expect(notified).toBe(1);
    expect(emitted.at(-1)?.payload).toEqual({ kids });
  });

  it('rotates by age at maintenance and drops the retired key after the overlap', async () => {
    const service = makeService();
    const [first] = await service.privateJwks();
    clock.advance(29 * DAY);
    await service.maintain();
    expect((await service.privateJwks()).map((key) => key.kid)).toEqual([first?.kid]);
    clock.advance(1 * DAY);
    await service.maintain();
    const [second, retired] = await service.privateJwks();
    expect(retired?.kid).toBe(first?.kid);
    clock.advance(options.retiredKeyOverlapSeconds * 1000);
    await service.maintain();
    expect((await service.publicJwks()).map((key) => key.kid)).toEqual([second?.kid]);
    expect(keys.rows.map((row) => row.kid)).toEqual([second?.kid]);
  });

  it('does not rotate again when another replica already did (reload)', async () => {
    const replicaA = makeService();
    const replicaB = makeService();
    await replicaA.privateJwks();
    await replicaB.privateJwks();
    await replicaA.rotate();
    let notified = 0;
    replicaB.onRotated(() => notified++);
    await replicaB.reload();
    expect((await replicaB.publicJwks()).map((key) => key.kid)).toEqual((await replicaA.publicJwks()).map((key) => key.kid));
    expect(notified).toBe(1);
    await replicaB.reload();
    expect(notified).toBe(1);
  });

  it('stores private keys sealed when a key encryption secret is set', async () => {
    const service = makeService('a secret of some length');
    const [signer] = await service.privateJwks();
    expect(keys.rows[0]?.privateJwk).toHaveProperty('sealed', 'A256GCM');
    expect(JSON.stringify(keys.rows[0]?.privateJwk)).not.toContain(String(signer?.d));
  });
});
