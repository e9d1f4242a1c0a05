import { describe, expect, it } from 'vitest';
import { RandomIds } from '@mcp-platform/shared-clock';
import type { ResolvedAuthorizationServerOptions } from '../../authorization-server.options';
import type { TenantsRepository } from '../tenants/tenants.repository';
import { PasswordHasher } from '../users/password-hasher';
import type { NewUser, StoredUser, UsersRepository } from '../users/users.repository';
import { DEMO_USERNAME, SeedService } from './seed.service';

/** Readable hashes; every hash is counted (a reset hashes). */
class FakeHasher extends PasswordHasher {
  hashes = 0;
  async hash(password: string): Promise<string> {
    this.hashes += 1;
    return `hash:${password}:${this.hashes}`;
  }
  async verify(passwordHash: string, password: string): Promise<boolean> {
    return passwordHash.startsWith(`hash:${password}:`);
  }
}

/** The demo user's row, and every password hash the seed wrote over it. */
class FakeUsers {
  demo: StoredUser | undefined;
  resets: string[] = [];
  async findByUsername(username: string): Promise<StoredUser | undefined> {
    return username === DEMO_USERNAME ? this.demo : undefined;
  }
  async insert(user: NewUser): Promise<boolean> {
    this.demo = {
      account: { id: user.id, username: user.username, tenant: user.tenant, platformAdmin: user.platformAdmin, roles: user.roles, disabled: false },
      passwordHash: user.passwordHash,
      tenantDisabled: false,
    } as StoredUser;
    return true;
  }
  async setPasswordHash(_id: string, passwordHash: string): Promise<void> {
    this.resets.push(passwordHash);
    if (this.demo) this.demo = { ...this.demo, passwordHash };
  }
}

function seedWith(users: FakeUsers, hasher: FakeHasher, demoUserPassword: string): SeedService {
  const tenants = { insertWithRoles: async () => false } as unknown as TenantsRepository;
  const options = { seed: { demoUserPassword }, bootstrapAdmin: undefined } as unknown as ResolvedAuthorizationServerOptions;
  return new SeedService(tenants, users as unknown as UsersRepository, hasher, new RandomIds(), options);
}

describe('SeedService', () => {
  describe('seed', () => {
    it('creates the demo user with the configured password', async () => {
      const users = new FakeUsers();
      await seedWith(users, new FakeHasher(), 'first-password-0123').seed();
      expect(users.demo?.passwordHash).toMatch(/^hash:first-password-0123:/);
    });

    it('leaves an existing demo user alone when the configured password is the one it has (a restart)', async () => {
      const users = new FakeUsers();
      const hasher = new FakeHasher();
      await seedWith(users, hasher, 'kept-password-0123').seed();
      const hashesAfterCreate = hasher.hashes;
      await seedWith(users, hasher, 'kept-password-0123').seed();
      expect(users.resets).toEqual([]);
      expect(hasher.hashes).toBe(hashesAfterCreate);
    });

    it('sets the configured password when it changed', async () => {
      const users = new FakeUsers();
      const hasher = new FakeHasher();
      await seedWith(users, hasher, 'old-password-0123').seed();
      await seedWith(users, hasher, 'new-password-0123').seed();
      expect(users.resets).toEqual([expect.stringMatching(/^hash:new-password-0123:/)]);
    });
  });
});
