import { beforeEach, describe, expect, it } from 'vitest';
import { RandomIds } from '@mcp-platform/shared-clock';
import type { AccessRevocations } from '../../revocations/access-revocations.service';
import { IdentityErrorCode } from '../identity.errors';
import type { Tenant } from '../identity.types';
import type { RolesRepository, StoredRole } from '../roles/roles.repository';
import type { TenantsRepository } from '../tenants/tenants.repository';
import { PasswordHasher } from './password-hasher';
import type { NewUser, StoredUser, UserChanges, UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** Hashes are readable and every verification is counted, so the timing rule can be checked. */
class FakeHasher extends PasswordHasher {
  verifications: string[] = [];
  async hash(password: string): Promise<string> {
    return `hash:${password}`;
  }
  async verify(passwordHash: string, password: string): Promise<boolean> {
    this.verifications.push(passwordHash);
    return passwordHash === `hash:${password}`;
  }
}

class FakeUsers {
  rows = new Map<string, StoredUser>();
  tenantsDisabled = new Set<string>();
  async findByUsername(username: string) {
    const found = [...this.rows.values()].find((row) => row.account.username === username);
    return found && this.withTenantState(found);
  }
  async findById(id: string) {
    const found = this.rows.get(id);
    return found && this.withTenantState(found);
  }
  async list(tenant: string | null) {
    return [...this.rows.values()].filter((row) => row.account.tenant === tenant);
  }
  async get(tenant: string | null, id: string) {
    const row = this.rows.get(id);
    return row && row.account.tenant === tenant ? row : undefined;
  }
  async anotherActivePlatformAdminExists(exceptId?: string) {
    return [...this.rows.values()].some((row) => row.account.platformAdmin && !row.account.disabled && row.account.id !== exceptId);
  }
  async insert(user: NewUser) {
    if ([...this.rows.values()].some((row) => row.account.username === user.username)) return false;
    this.rows.set(user.id, {
      account: { id: user.id, username: user.username, tenant: user.tenant, platformAdmin: user.platformAdmin, roles: user.roles, disabled: false },
      passwordHash: user.passwordHash,
      tenantDisabled: false,
    });
    return true;
  }
  async update(tenant: string | null, id: string, changes: UserChanges) {
    const row = await this.get(tenant, id);
    if (!row) return undefined;
    if (changes.passwordHash !== undefined) row.passwordHash = changes.passwordHash;
    if (changes.disabled !== undefined) row.account.disabled = changes.disabled;
    if (changes.roles !== undefined) row.account.roles = changes.roles;
    return row;
  }
  async delete(tenant: string | null, id: string) {
    return (await this.get(tenant, id)) !== undefined && this.rows.delete(id);
  }
  private withTenantState(row: StoredUser): StoredUser {
    return { ...row, tenantDisabled: row.account.tenant !== null && this.tenantsDisabled.has(row.account.tenant) };
  }
}

const TENANTS: Record<string, Tenant> = { demo: { id: 'demo-id', slug: 'demo', name: 'Demo', disabled: false, createdAt: new Date(0) } };
const fakeTenants = { find: async (slug: string) => TENANTS[slug] } as unknown as TenantsRepository;
const ROLES: StoredRole[] = [
  { name: 'member', description: null, scopes: ['mcp'], scopeDescriptions: {} },
  { name: 'tenant-admin', description: null, scopes: ['*'], scopeDescriptions: {} },
];
const fakeRoles = {
  findByNames: async (tenant: string, names: readonly string[]) => (tenant === 'demo' ? ROLES.filter((role) => names.includes(role.name)) : []),
} as unknown as RolesRepository;

describe(UsersService, () => {
  let users: FakeUsers;
  let hasher: FakeHasher;
  let service: UsersService;
  /** Each revocation, with what the users table said of its subject at that moment. */
  let revocations: Array<{ subject: string; stored: 'enabled' | 'disabled' | 'deleted' }>;
  const revoked = () => [...new Set(revocations.map((revocation) => revocation.subject))];

  beforeEach(() => {
    users = new FakeUsers();
    hasher = new FakeHasher();
    revocations = [];
    const stateOf = (subject: string) => {
      const row = users.rows.get(subject);
      return row === undefined ? 'deleted' : row.account.disabled ? 'disabled' : 'enabled';
    };
    const revocationsService = {
      revokeSubject: async (subject: string) => void revocations.push({ subject, stored: stateOf(subject) }),
    } as unknown as AccessRevocations;
    service = new UsersService(users as unknown as UsersRepository, fakeTenants, fakeRoles, hasher, revocationsService, new RandomIds());
  });

  describe('create', () => {
    it('stores the username lowercased with a hash and the roles, sorted', async () => {
      const account = await service.create('demo', { username: 'Alice', password: 'a long password', roles: ['tenant-admin', 'member'] });
      expect(account).toMatchObject({ username: 'alice', tenant: 'demo', platformAdmin: false, roles: ['member', 'tenant-admin'], disabled: false });
      expect(users.rows.get(account.id)?.passwordHash).toBe('hash:a long password');
    });

    it('refuses a password shorter than 12 characters, saying the rule', async () => {
      await expect(service.create('demo', { username: 'bob', password: 'short' })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
        message: expect.stringContaining('12 characters'),
      });
    });

    it('refuses a taken username whatever its case', async () => {
      await service.create('demo', { username: 'carol', password: 'a long password' });
      await expect(service.create('demo', { username: 'CAROL', password: 'a long password' })).rejects.toMatchObject({ code: IdentityErrorCode.Conflict });
    });

    it('refuses roles the tenant does not have, and an unknown tenant', async () => {
      await expect(service.create('demo', { username: 'dave', password: 'a long password', roles: ['owner'] })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
        message: expect.stringContaining('owner'),
      });
      await expect(service.create('nope', { username: 'dave', password: 'a long password' })).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
    });

    it('allows a user without tenant only as platform admin, and without roles', async () => {
      await expect(service.create(null, { username: 'erin', password: 'a long password' })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.create(null, { username: 'erin', password: 'a long password', platformAdmin: true, roles: ['member'] })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
      });
      await expect(service.create(null, { username: 'erin', password: 'a long password', platformAdmin: true })).resolves.toMatchObject({
        tenant: null,
        platformAdmin: true,
      });
    });
  });

  describe('verifyPassword', () => {
    beforeEach(async () => {
      await service.create('demo', { username: 'frank', password: 'right password' });
    });

    it('answers the account for the right password, whatever the username case', async () => {
      await expect(service.verifyPassword(' FRANK ', 'right password')).resolves.toMatchObject({ username: 'frank', tenant: 'demo' });
    });

    it('answers undefined for a wrong password', async () => {
      await expect(service.verifyPassword('frank', 'wrong password')).resolves.toBeUndefined();
    });

    it('spends one hash verification on an unknown user too', async () => {
      await expect(service.verifyPassword('nobody', 'right password')).resolves.toBeUndefined();
      expect(hasher.verifications).toHaveLength(1);
      expect(hasher.verifications[0]).toMatch(/^hash:/);
    });

    it('refuses a disabled user, and the users of a disabled tenant, after a verification', async () => {
      const [frank] = await service.list('demo');
      await service.update('demo', frank!.id, { disabled: true });
      await expect(service.verifyPassword('frank', 'right password')).resolves.toBeUndefined();
      await service.update('demo', frank!.id, { disabled: false });
      users.tenantsDisabled.add('demo');
      await expect(service.verifyPassword('frank', 'right password')).resolves.toBeUndefined();
      expect(hasher.verifications).toHaveLength(2);
      expect(hasher.verifications.every((hash) => hash !== 'hash:right password')).toBe(true);
    });
  });

  describe('update and delete', () => {
    it('are scoped to the tenant named', async () => {
      const grace = await service.create('demo', { username: 'grace', password: 'a long password' });
      await expect(service.get(null, grace.id)).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await expect(service.delete(null, grace.id)).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await expect(service.update('demo', grace.id, { roles: ['member'] })).resolves.toMatchObject({ roles: ['member'] });
    });

    it('rehash a new password under the policy', async () => {
      const heidi = await service.create('demo', { username: 'heidi', password: 'a long password' });
      await expect(service.update('demo', heidi.id, { password: 'short' })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await service.update('demo', heidi.id, { password: 'another long one' });
      await expect(service.verifyPassword('heidi', 'another long one')).resolves.toMatchObject({ id: heidi.id });
    });

    it('revoke the access tokens of a user disabled or deleted, and of nobody else', async () => {
      const ivan = await service.create('demo', { username: 'ivan', password: 'a long password' });
      const judy = await service.create('demo', { username: 'judy', password: 'a long password' });
      await service.update('demo', ivan.id, { roles: ['member'] });
      expect(revoked()).toEqual([]);
      await service.update('demo', ivan.id, { disabled: true });
      await service.delete('demo', judy.id);
      expect(revoked()).toEqual([ivan.id, judy.id]);
    });

    it('revoke again once the change is stored, so a token issued while it was being made (a refresh, a slow password hash) is refused too', async () => {
      const ivan = await service.create('demo', { username: 'ivan', password: 'a long password' });
      const judy = await service.create('demo', { username: 'judy', password: 'a long password' });
      await service.update('demo', ivan.id, { disabled: true, password: 'a new long password' });
      await service.delete('demo', judy.id);
      // Before the change (harmless should it fail) and after it: the later revocation covers the window.
      expect(revocations).toEqual([
        { subject: ivan.id, stored: 'enabled' },
        { subject: ivan.id, stored: 'disabled' },
        { subject: judy.id, stored: 'enabled' },
        { subject: judy.id, stored: 'deleted' },
      ]);
    });

    it('never leave the platform without an enabled platform admin', async () => {
      const root = await service.create(null, { username: 'root', password: 'a long password', platformAdmin: true });
      await expect(service.update(null, root.id, { disabled: true })).rejects.toMatchObject({ code: IdentityErrorCode.Conflict });
      await expect(service.delete(null, root.id)).rejects.toMatchObject({ code: IdentityErrorCode.Conflict });
      await service.create(null, { username: 'root2', password: 'a long password', platformAdmin: true });
      await expect(service.delete(null, root.id)).resolves.toBeUndefined();
    });
  });
});
