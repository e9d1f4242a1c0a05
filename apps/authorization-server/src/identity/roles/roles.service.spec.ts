import { describe, expect, it } from 'vitest';
import { IdentityErrorCode } from '../identity.errors';
import type { UserAccount } from '../identity.types';
import type { TenantsRepository } from '../tenants/tenants.repository';
import { allowedSubset, isScopeAllowed, unionOfRoleScopes } from './role-scopes';
import type { RolesRepository, StoredRole } from './roles.repository';
import { RolesService } from './roles.service';

const roles = new Map<string, StoredRole>([
  ['tenant-admin', { name: 'tenant-admin', description: null, scopes: ['*'], scopeDescriptions: {} }],
  ['member', { name: 'member', description: null, scopes: ['mcp', 'demo'], scopeDescriptions: { 'demo:crypto': 'Hash text.' } }],
  [
    'reader',
    {
      name: 'reader',
      description: null,
      scopes: ['mcp', 'files:read'],
      scopeDescriptions: { 'files:read': 'Read files.', 'demo:crypto': 'Ignored: member comes first.' },
    },
  ],
]);
const fakeRoles = {
  list: async () => [...roles.values()],
  findByNames: async (_tenant: string, names: readonly string[]) => [...roles.values()].filter((role) => names.includes(role.name)),
  upsert: async (_tenant: string, role: StoredRole) => {
    const created = !roles.has(role.name);
    roles.set(role.name, role);
    return created;
  },
  delete: async (_tenant: string, name: string) => roles.delete(name),
} as unknown as RolesRepository;
const fakeTenants = { find: async (slug: string) => (slug === 'demo' ? { slug } : undefined) } as unknown as TenantsRepository;
const service = new RolesService(fakeRoles, fakeTenants);

const user = (changes: Partial<UserAccount>): UserAccount => ({
  id: 'u',
  username: 'u',
  tenant: 'demo',
  platformAdmin: false,
  roles: [],
  disabled: false,
  ...changes,
});

describe(RolesService, () => {
  describe('allowedScopes', () => {
    it('is the union of the roles’ scopes', async () => {
      await expect(service.allowedScopes(user({ roles: ['member', 'reader'] }), 'demo')).resolves.toEqual(['demo', 'files:read', 'mcp']);
    });

    it('is ["*"] when a role allows every scope', async () => {
      await expect(service.allowedScopes(user({ roles: ['member', 'tenant-admin'] }), 'demo')).resolves.toEqual(['*']);
    });

    it('is empty for another tenant, a disabled user and a platform admin without roles', async () => {
      await expect(service.allowedScopes(user({ roles: ['member'] }), 'other')).resolves.toEqual([]);
      await expect(service.allowedScopes(user({ roles: ['member'], disabled: true }), 'demo')).resolves.toEqual([]);
      await expect(service.allowedScopes(user({ tenant: null, platformAdmin: true }), 'demo')).resolves.toEqual([]);
    });
  });

  describe('scopeDescriptions', () => {
    it('gathers the descriptions of every role of the tenant, the first role by name winning', async () => {
      const described = await service.scopeDescriptions('demo');
      expect(Object.fromEntries(described)).toEqual({ 'demo:crypto': 'Hash text.', 'files:read': 'Read files.' });
    });
  });

  describe('isTenantAdmin', () => {
    it('needs the tenant-admin role in that very tenant', () => {
      expect(service.isTenantAdmin(user({ roles: ['tenant-admin'] }), 'demo')).toBe(true);
      expect(service.isTenantAdmin(user({ roles: ['tenant-admin'] }), 'other')).toBe(false);
      expect(service.isTenantAdmin(user({ roles: ['member'] }), 'demo')).toBe(false);
      expect(service.isTenantAdmin(user({ tenant: null, platformAdmin: true }), 'demo')).toBe(false);
    });
  });

  describe('put', () => {
    it('creates, then replaces a role', async () => {
      await expect(service.put('demo', { name: 'ops', scopes: ['mcp', 'ops', 'mcp'] })).resolves.toEqual({
        created: true,
        role: { name: 'ops', scopes: ['mcp', 'ops'], builtIn: false },
      });
      await expect(service.put('demo', { name: 'ops', description: 'Operators', scopes: ['mcp'] })).resolves.toMatchObject({
        created: false,
        role: { description: 'Operators' },
      });
    });

    it('keeps descriptions of scopes the role allows, trimmed, and refuses others', async () => {
      await expect(service.put('demo', { name: 'crypto', scopes: ['demo'], scopeDescriptions: { 'demo:crypto': ' Hash text. ' } })).resolves.toMatchObject({
        role: { scopeDescriptions: { 'demo:crypto': 'Hash text.' } },
      });
      await expect(service.put('demo', { name: 'crypto', scopes: ['mcp'], scopeDescriptions: { 'demo:crypto': 'Hash text.' } })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
        message: expect.stringContaining('does not allow'),
      });
      await expect(service.put('demo', { name: 'crypto', scopes: ['demo'], scopeDescriptions: { demo: ' ' } })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
      });
      await service.delete('demo', 'crypto');
    });

    it('refuses to change tenant-admin, bad names and bad scopes', async () => {
      await expect(service.put('demo', { name: 'tenant-admin', scopes: ['mcp'] })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.put('demo', { name: 'Bad Name', scopes: [] })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.put('demo', { name: 'spaced', scopes: ['two words'] })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.put('nope', { name: 'ops', scopes: [] })).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
    });
  });

  describe('delete', () => {
    it('refuses built-in roles and unknown ones', async () => {
      await expect(service.delete('demo', 'member')).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.delete('demo', 'ghost')).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await expect(service.delete('demo', 'reader')).resolves.toBeUndefined();
    });
  });

  describe('list', () => {
    it('marks the built-in roles', async () => {
      const listed = await service.list('demo');
      expect(listed.find((role) => role.name === 'member')).toMatchObject({ builtIn: true });
    });
  });
});

describe('role scope helpers', () => {
  it('unionOfRoleScopes dedupes and sorts', () => {
    expect(
      unionOfRoleScopes([
        ['mcp', 'b'],
        ['a', 'mcp'],
      ]),
    ).toEqual(['a', 'b', 'mcp']);
    expect(unionOfRoleScopes([])).toEqual([]);
  });

  it('isScopeAllowed honours * and the scope hierarchy', () => {
    expect(isScopeAllowed(['*'], 'anything:at:all')).toBe(true);
    expect(isScopeAllowed(['demo'], 'demo:crypto')).toBe(true);
    expect(isScopeAllowed(['demo:crypto'], 'demo')).toBe(false);
    expect(isScopeAllowed(['mcp'], 'mcpx')).toBe(false);
  });

  it('allowedSubset keeps the candidates the user may obtain, in order', () => {
    expect(allowedSubset(['mcp', 'demo'], ['demo:crypto', 'admin', 'mcp'])).toEqual(['demo:crypto', 'mcp']);
  });
});
