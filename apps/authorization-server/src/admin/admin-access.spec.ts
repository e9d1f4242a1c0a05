import { describe, expect, it } from 'vitest';
import { type AdminPrincipal, decideAdminAccess, PLATFORM_ADMIN_ROLE, withCurrentRights } from './admin-access';

const principal = (overrides: Partial<AdminPrincipal> = {}): AdminPrincipal => ({
  subject: '5d9b4e0e-8f61-4a51-9c43-3c3f1f0b8a11',
  clientId: 'admin-cli',
  tenant: undefined,
  scopes: ['admin'],
  roles: [],
  ...overrides,
});

const platformAdmin = principal({ roles: [PLATFORM_ADMIN_ROLE] });
const acmeAdmin = principal({ tenant: 'acme', roles: ['tenant-admin'] });

describe(decideAdminAccess, () => {
  it('lets a platform admin use platform routes and every tenant', () => {
    expect(decideAdminAccess(platformAdmin, 'platform', undefined)).toEqual({ allowed: true });
    expect(decideAdminAccess(platformAdmin, 'tenant', 'acme')).toEqual({ allowed: true });
    expect(decideAdminAccess(platformAdmin, 'tenant', 'globex')).toEqual({ allowed: true });
  });

  it("lets a tenant admin administer its own tenant's routes", () => {
    expect(decideAdminAccess(acmeAdmin, 'tenant', 'acme')).toEqual({ allowed: true });
  });

  it('refuses a tenant admin on another tenant', () => {
    expect(decideAdminAccess(acmeAdmin, 'tenant', 'globex')).toMatchObject({ allowed: false, reason: 'forbidden' });
  });

  it('refuses a tenant admin on the tenants collection and on a tenant resource itself', () => {
    expect(decideAdminAccess(acmeAdmin, 'platform', undefined)).toMatchObject({ allowed: false, reason: 'forbidden' });
    expect(decideAdminAccess(acmeAdmin, 'platform', 'acme')).toMatchObject({ allowed: false, reason: 'forbidden' });
  });

  it('refuses a tenant admin role without a tenant claim', () => {
    expect(decideAdminAccess(principal({ roles: ['tenant-admin'] }), 'tenant', 'acme')).toMatchObject({ allowed: false, reason: 'forbidden' });
  });

  it('refuses a caller without an admin role, even in its own tenant', () => {
    expect(decideAdminAccess(principal({ tenant: 'acme', roles: ['member'] }), 'tenant', 'acme')).toMatchObject({ allowed: false, reason: 'forbidden' });
  });

  it('refuses a token without the admin scope before looking at roles', () => {
    expect(decideAdminAccess(principal({ roles: [PLATFORM_ADMIN_ROLE], scopes: ['mcp'] }), 'platform', undefined)).toMatchObject({
      allowed: false,
      reason: 'insufficient_scope',
    });
    expect(decideAdminAccess(principal({ tenant: 'acme', roles: ['tenant-admin'], scopes: [] }), 'tenant', 'acme')).toMatchObject({
      allowed: false,
      reason: 'insufficient_scope',
    });
  });

  it('does not take a narrower scope for the admin scope (the hierarchy runs the other way)', () => {
    expect(decideAdminAccess(principal({ roles: [PLATFORM_ADMIN_ROLE], scopes: ['admin:read'] }), 'platform', undefined)).toMatchObject({
      allowed: false,
      reason: 'insufficient_scope',
    });
  });

  it('compares tenants exactly', () => {
    expect(decideAdminAccess(acmeAdmin, 'tenant', 'acme-2')).toMatchObject({ allowed: false });
    expect(decideAdminAccess(acmeAdmin, 'tenant', 'ACME')).toMatchObject({ allowed: false });
    expect(decideAdminAccess(acmeAdmin, 'tenant', undefined)).toMatchObject({ allowed: false });
  });
});

describe(withCurrentRights, () => {
  it('keeps the roles the user still holds', () => {
    expect(withCurrentRights(acmeAdmin, { tenant: 'acme', roles: ['tenant-admin'] }).roles).toEqual(['tenant-admin']);
    expect(withCurrentRights(platformAdmin, { tenant: undefined, roles: [PLATFORM_ADMIN_ROLE] }).roles).toEqual([PLATFORM_ADMIN_ROLE]);
  });

  it('drops a role the user lost since the token was issued', () => {
    expect(
      withCurrentRights(principal({ tenant: 'acme', roles: [PLATFORM_ADMIN_ROLE, 'tenant-admin'] }), { tenant: 'acme', roles: ['tenant-admin'] }).roles,
    ).toEqual(['tenant-admin']);
  });

  it('never adds a role the token does not claim', () => {
    expect(withCurrentRights(acmeAdmin, { tenant: 'acme', roles: [PLATFORM_ADMIN_ROLE, 'tenant-admin'] }).roles).toEqual(['tenant-admin']);
  });

  it('drops tenant-admin when the user now belongs to another tenant', () => {
    expect(withCurrentRights(acmeAdmin, { tenant: 'globex', roles: ['tenant-admin'] }).roles).toEqual([]);
  });
});
