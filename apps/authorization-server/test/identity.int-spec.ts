import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { bootService, serviceSetups } from '@mcp-platform/shared-testing';
import { AUTHORIZATION_SERVER_CONNECTION } from '../src/authorization-server.constants';
import { AuthorizationServerModule } from '../src/authorization-server.module';
import { IdentityErrorCode } from '../src/identity/identity.errors';
import { RolesService } from '../src/identity/roles/roles.service';
import { SeedService } from '../src/identity/seed/seed.service';
import { TenantsService } from '../src/identity/tenants/tenants.service';
import { UsersService } from '../src/identity/users/users.service';
import { SigningKeysService } from '../src/signing-keys/signing-keys.service';

const run = `as${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const DEMO_PASSWORD = 'demo-password-for-tests';
const ADMIN_PASSWORD = 'admin-password-for-tests';
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

/** Both setups; several replicas can share the database only on a server, not PGlite in one process. */
const setups = serviceSetups('authorization-server', run).map((setup) => ({ ...setup, replicas: setup.name === 'NATS + PostgreSQL' }));

function boot(messaging: MessagingOptions, database: DatabaseOptions): Promise<INestApplication> {
  return bootService(
    messaging,
    AuthorizationServerModule.register({
      database,
      publicUrl: 'http://127.0.0.1:3101/',
      mcpPublicUrl: 'http://127.0.0.1:3000',
      seed: { demoUserPassword: DEMO_PASSWORD },
      bootstrapAdmin: { username: 'Root', password: ADMIN_PASSWORD },
    }),
  );
}

/** Polls until `probe` answers something truthy (events cross the bus asynchronously). */
async function eventually<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(setups)('AuthorizationServerModule identity over $name', (setup) => {
  let app: INestApplication;
  let drop: (() => Promise<void>) | undefined;
  let databaseOptions: DatabaseOptions;
  let users: UsersService;

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    const database = await setup.database();
    drop = database.drop;
    databaseOptions = database.options;
    app = await boot(setup.messaging(), database.options);
    users = app.get(UsersService);
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  describe('migrations and seed', () => {
    it('created the tables with named constraints in schema authorization_server', async () => {
      const dataSource = app.get<DataSource>(getDataSourceToken(AUTHORIZATION_SERVER_CONNECTION));
      const tables: Array<{ table_name: string }> = await dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'authorization_server' ORDER BY table_name`,
      );
      expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(['migrations', 'roles', 'signing_keys', 'tenants', 'user_roles', 'users']));
    });

    it('seeded tenants demo and conformance with their built-in roles', async () => {
      const tenants = await app.get(TenantsService).list();
      expect(tenants.map((tenant) => tenant.slug)).toEqual(expect.arrayContaining(['conformance', 'demo']));
      const roles = app.get(RolesService);
      await expect(roles.get('demo', 'member')).resolves.toMatchObject({ scopes: ['mcp', 'demo'], builtIn: true });
      await expect(roles.get('conformance', 'member')).resolves.toMatchObject({ scopes: ['mcp'] });
      await expect(roles.get('demo', 'tenant-admin')).resolves.toMatchObject({ scopes: ['*'] });
    });

    it('is idempotent: seeding twice more changes nothing and the demo password still works', async () => {
      const before = { tenants: await app.get(TenantsService).list(), demoUsers: await users.list('demo'), admins: await users.list(null) };
      await app.get(SeedService).seed();
      await app.get(SeedService).seed();
      expect(await app.get(TenantsService).list()).toEqual(before.tenants);
      expect(await users.list('demo')).toEqual(before.demoUsers);
      expect(await users.list(null)).toEqual(before.admins);
      await expect(users.verifyPassword('demo', DEMO_PASSWORD)).resolves.toMatchObject({ username: 'demo' });
    });

    it('created the bootstrap platform admin once, lowercased and without tenant', async () => {
      const admins = await users.list(null);
      expect(admins).toEqual([expect.objectContaining({ username: 'root', tenant: null, platformAdmin: true, roles: [] })]);
    });
  });

  describe('UsersService.verifyPassword', () => {
    it('answers the demo account for the right password', async () => {
      const account = await users.verifyPassword('Demo', DEMO_PASSWORD);
      expect(account).toMatchObject({ username: 'demo', tenant: 'demo', roles: ['member'], platformAdmin: false, disabled: false });
      await expect(app.get(RolesService).allowedScopes(account!, 'demo')).resolves.toEqual(['demo', 'mcp']);
      await expect(users.findById(account!.id)).resolves.toEqual(account);
    });

    it('answers undefined for a wrong password and an unknown user', async () => {
      await expect(users.verifyPassword('demo', 'not the password')).resolves.toBeUndefined();
      await expect(users.verifyPassword('nobody-here', DEMO_PASSWORD)).resolves.toBeUndefined();
    });

    it('answers undefined for a disabled user, and again the account once enabled', async () => {
      const created = await users.create('demo', { username: 'ivan', password: 'ivan-password-1', roles: ['member'] });
      await users.update('demo', created.id, { disabled: true });
      await expect(users.verifyPassword('ivan', 'ivan-password-1')).resolves.toBeUndefined();
      await users.update('demo', created.id, { disabled: false });
      await expect(users.verifyPassword('ivan', 'ivan-password-1')).resolves.toMatchObject({ id: created.id });
    });

    it('keeps usernames unique across tenants and scopes reads to the tenant', async () => {
      const judy = await users.create('conformance', { username: 'judy', password: 'judy-password-1' });
      await expect(users.create('demo', { username: 'JUDY', password: 'judy-password-1' })).rejects.toMatchObject({ code: IdentityErrorCode.Conflict });
      await expect(users.get('demo', judy.id)).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await expect(users.get('conformance', 'not-a-uuid')).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await users.delete('conformance', judy.id);
      await expect(users.findById(judy.id)).resolves.toBeUndefined();
    });
  });

  describe('TenantsService without a tool executor on the bus', () => {
    it('refuses to create a tenant and keeps nothing', async () => {
      // On NATS too: the run's subject prefix keeps any other platform's tool executor out of reach.
      const tenants = app.get(TenantsService);
      await expect(tenants.create({ slug: `orphan-${run}`, name: 'Orphan' })).rejects.toMatchObject({ code: IdentityErrorCode.Unavailable });
      await expect(tenants.get(`orphan-${run}`)).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
    });
  });

  describe('signing keys', () => {
    it('answers listSigningKeys with the issuer and public keys only', async () => {
      const bus = app.get(MessageBus);
      const answer = await bus.request(authorizationServer.listSigningKeys, {});
      expect(answer.issuer).toBe('http://127.0.0.1:3101/oauth');
      expect(answer.keys.length).toBeGreaterThanOrEqual(1);
      for (const key of answer.keys) {
        expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
        for (const member of PRIVATE_MEMBERS) expect(key).not.toHaveProperty(member);
      }
    });

    it('publishes signingKeysRotated after a rotation and serves the new key first', async () => {
      const bus = app.get(MessageBus);
      const keys = app.get(SigningKeysService);
      const received: string[][] = [];
      const subscription = bus.subscribe(authorizationServer.signingKeysRotated, (payload) => received.push(payload.kids));
      try {
        const before = (await keys.publicJwks()).map((key) => key.kid);
        await keys.rotate();
        const kids = await eventually(async () => received.at(-1), 'signingKeysRotated');
        expect(kids).toHaveLength(before.length + 1);
        expect(kids.slice(1)).toEqual(before);
        const answer = await bus.request(authorizationServer.listSigningKeys, {});
        expect(answer.keys.map((key) => key.kid)).toEqual(kids);
        const [signer] = await keys.privateJwks();
        expect(signer?.kid).toBe(kids[0]);
        expect(signer?.d).toBeTruthy();
      } finally {
        subscription.unsubscribe();
      }
    });

    it('lets another replica pick up the rotation from the event', async (context) => {
      if (!setup.replicas) context.skip('PGlite lives in one process: one replica only');
      const replica = await boot(setup.messaging(), databaseOptions);
      try {
        const mine = app.get(SigningKeysService);
        const theirs = replica.get(SigningKeysService);
        expect((await theirs.publicJwks()).map((key) => key.kid)).toEqual((await mine.publicJwks()).map((key) => key.kid));
        let notified = 0;
        theirs.onRotated(() => notified++);
        await mine.rotate();
        const [signer] = await mine.publicJwks();
        await eventually(async () => (await theirs.publicJwks())[0]?.kid === signer?.kid, 'the replica to reload');
        expect(notified).toBe(1);
      } finally {
        await replica.close();
      }
    });
  });
});
