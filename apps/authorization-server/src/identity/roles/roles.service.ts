import { Injectable } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { IdentityError, IdentityErrorCode } from '../identity.errors';
import { BUILT_IN_ROLES, type Role, TENANT_ADMIN_ROLE, type UserAccount } from '../identity.types';
import { TenantsRepository } from '../tenants/tenants.repository';
import { isScopeAllowed, unionOfRoleScopes } from './role-scopes';
import { RolesRepository, type StoredRole } from './roles.repository';

export type { Role } from '../identity.types';

/** Role names: lowercase letters, digits and `-`, like slugs. */
const ROLE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MAX_SCOPES = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
/** A scope's description is a sentence on the consent page, not a manual. */
const MAX_SCOPE_DESCRIPTION_LENGTH = 300;

/** What an administrator writes for a role. */
export interface RoleInput {
  name: string;
  description?: string;
  scopes: string[];
  /** What some of the role's scopes let an application do (keys: scopes the role allows). */
  scopeDescriptions?: Record<string, string>;
}

/**
 * Roles: named sets of scopes within a tenant. A user may obtain a scope only when one of their roles
 * allows it; `*` allows every scope. `tenant-admin` and `member` exist in every tenant.
 */
@Injectable()
export class RolesService {
  constructor(
    private readonly repository: RolesRepository,
    private readonly tenants: TenantsRepository,
  ) {}

  /** The tenant's roles by name; `NotFound` for an unknown tenant. */
  async list(tenant: string): Promise<Role[]> {
    await this.requireTenant(tenant);
    return (await this.repository.list(tenant)).map(toRole);
  }

  /** One role; `NotFound` for an unknown tenant or role. */
  async get(tenant: string, name: string): Promise<Role> {
    await this.requireTenant(tenant);
    const [role] = await this.repository.findByNames(tenant, [name]);
    if (!role) throw new IdentityError(IdentityErrorCode.NotFound, `no role ${name} in tenant ${tenant}`);
    return toRole(role);
  }

  /**
   * Creates or replaces a role. `Invalid` for a bad name or scope, a description of a scope the role
   * does not allow, and for `tenant-admin`, whose scopes are fixed to `*` (a tenant must always have
   * someone able to administer it).
   */
  async put(tenant: string, input: RoleInput): Promise<{ created: boolean; role: Role }> {
    await this.requireTenant(tenant);
    assertRole(input);
    const stored: StoredRole = {
      name: input.name,
      description: input.description?.trim() || null,
      scopes: [...new Set(input.scopes)],
      scopeDescriptions: Object.fromEntries(Object.entries(input.scopeDescriptions ?? {}).map(([scope, text]) => [scope, text.trim()])),
    };
    const created = await this.repository.upsert(tenant, stored);
    return { created, role: toRole(stored) };
  }

  /** Deletes a role; its users lose it. `Invalid` for a built-in role, `NotFound` for an unknown one. */
  async delete(tenant: string, name: string): Promise<void> {
    await this.requireTenant(tenant);
    if (BUILT_IN_ROLES.includes(name)) throw new IdentityError(IdentityErrorCode.Invalid, `${name} is built in and cannot be deleted`);
    if (!(await this.repository.delete(tenant, name))) throw new IdentityError(IdentityErrorCode.NotFound, `no role ${name} in tenant ${tenant}`);
  }

  /**
   * The scopes the user may obtain for the tenant's virtual servers: the union of their roles' scopes,
   * `['*']` when a role allows every scope (match with `isScopeAllowed`). Empty for another tenant
   * (tokens only for one's own tenant), for a disabled user, and for a platform administrator
   * without roles (being platform admin grants nothing on MCP servers).
   */
  async allowedScopes(user: UserAccount, tenant: string): Promise<string[]> {
    if (user.disabled || user.tenant !== tenant || user.roles.length === 0) return [];
    const roles = await this.repository.findByNames(tenant, user.roles);
    return unionOfRoleScopes(roles.map((role) => role.scopes));
  }

  /**
   * What the tenant's administrators wrote about its scopes, gathered from every role of the tenant
   * (a scope described by several roles takes the first role's words, by role name).
   */
  async scopeDescriptions(tenant: string): Promise<Map<string, string>> {
    const described = new Map<string, string>();
    for (const role of await this.repository.list(tenant)) {
      for (const [scope, text] of Object.entries(role.scopeDescriptions)) if (!described.has(scope)) described.set(scope, text);
    }
    return described;
  }

  /** Whether the user administers the tenant (has its `tenant-admin` role). */
  isTenantAdmin(user: UserAccount, tenant: string): boolean {
    return !user.disabled && user.tenant === tenant && user.roles.includes(TENANT_ADMIN_ROLE);
  }

  private async requireTenant(tenant: string): Promise<void> {
    if (!(await this.tenants.find(tenant))) throw new IdentityError(IdentityErrorCode.NotFound, `no tenant ${tenant}`);
  }
}

function assertRole(input: RoleInput): void {
  if (!ROLE_NAME.test(input.name))
    throw new IdentityError(IdentityErrorCode.Invalid, 'a role name is 1..63 of a-z 0-9 and "-", starting with a letter or digit');
  if (input.name === TENANT_ADMIN_ROLE) throw new IdentityError(IdentityErrorCode.Invalid, `${TENANT_ADMIN_ROLE} is built in: it always allows every scope`);
  if ((input.description?.length ?? 0) > MAX_DESCRIPTION_LENGTH)
    throw new IdentityError(IdentityErrorCode.Invalid, `a role description has at most ${MAX_DESCRIPTION_LENGTH} characters`);
  if (input.scopes.length > MAX_SCOPES) throw new IdentityError(IdentityErrorCode.Invalid, `a role has at most ${MAX_SCOPES} scopes`);
  for (const scope of input.scopes) {
    if (!toolExecutor.ScopeNameSchema.safeParse(scope).success) throw new IdentityError(IdentityErrorCode.Invalid, `not a scope: ${JSON.stringify(scope)}`);
  }
  const described = Object.entries(input.scopeDescriptions ?? {});
  if (described.length > MAX_SCOPES) throw new IdentityError(IdentityErrorCode.Invalid, `a role describes at most ${MAX_SCOPES} scopes`);
  for (const [scope, text] of described) {
    // A role describes what it grants: a description of a scope it does not allow would mislead.
    if (!isScopeAllowed(input.scopes, scope))
      throw new IdentityError(IdentityErrorCode.Invalid, `scopeDescriptions: the role does not allow ${JSON.stringify(scope)}`);
    if (text.trim().length === 0 || text.length > MAX_SCOPE_DESCRIPTION_LENGTH) {
      throw new IdentityError(IdentityErrorCode.Invalid, `scopeDescriptions: the description of ${scope} is 1..${MAX_SCOPE_DESCRIPTION_LENGTH} characters`);
    }
  }
}

function toRole(role: StoredRole): Role {
  return {
    name: role.name,
    ...(role.description ? { description: role.description } : {}),
    scopes: role.scopes,
    ...(Object.keys(role.scopeDescriptions).length > 0 ? { scopeDescriptions: role.scopeDescriptions } : {}),
    builtIn: BUILT_IN_ROLES.includes(role.name),
  };
}
