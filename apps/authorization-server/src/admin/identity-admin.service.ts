import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { Role, Tenant, UserAccount } from '../identity/identity.types';
import { RolesService } from '../identity/roles/roles.service';
import { TenantsService } from '../identity/tenants/tenants.service';
import { UsersService } from '../identity/users/users.service';
import { AdminApiError, AdminErrorCode } from './admin.errors';
import { type AdminPrincipal, PLATFORM_ADMIN_ROLE } from './admin-access';
import type {
  CreateTenantBody,
  CreateUserBody,
  PutRoleBody,
  RoleListSchema,
  RolePutResultSchema,
  RoleViewSchema,
  TenantListSchema,
  TenantViewSchema,
  UpdateTenantBody,
  UpdateUserBody,
  UserListSchema,
  UserViewSchema,
} from './identity-admin.schemas';

type TenantView = z.output<typeof TenantViewSchema>;
type UserView = z.output<typeof UserViewSchema>;
type RoleView = z.output<typeof RoleViewSchema>;

/**
 * The identity services (tenants, users, roles) in the admin API's terms: collections wrapped in an
 * object, dates as ISO strings, users scoped to the tenant in the path, and only the fields the API
 * documents. The rules stay in the services; their `IdentityError`s pass through to the error mapper.
 */
@Injectable()
export class IdentityAdminService {
  constructor(
    private readonly tenants: TenantsService,
    private readonly users: UsersService,
    private readonly roles: RolesService,
  ) {}

  async listTenants(): Promise<z.output<typeof TenantListSchema>> {
    return { tenants: (await this.tenants.list()).map(tenantView) };
  }

  async getTenant(slug: string): Promise<TenantView> {
    return tenantView(await this.tenants.get(slug));
  }

  async createTenant(body: CreateTenantBody): Promise<TenantView> {
    return tenantView(await this.tenants.create(body));
  }

  async updateTenant(slug: string, body: UpdateTenantBody): Promise<TenantView> {
    return tenantView(await this.tenants.update(slug, body));
  }

  deleteTenant(slug: string): Promise<void> {
    return this.tenants.delete(slug);
  }

  async listUsers(tenant: string): Promise<z.output<typeof UserListSchema>> {
    return { users: (await this.users.list(tenant)).map(userView) };
  }

  async getUser(tenant: string, id: string): Promise<UserView> {
    return userView(await this.users.get(tenant, id));
  }

  /** A user of the tenant; never a platform administrator (see `CreateUserBodySchema`). */
  async createUser(tenant: string, body: CreateUserBody): Promise<UserView> {
    return userView(await this.users.create(tenant, { username: body.username, password: body.password, roles: body.roles, platformAdmin: false }));
  }

  async updateUser(tenant: string, id: string, body: UpdateUserBody, actor: AdminPrincipal): Promise<UserView> {
    await this.requireRightsOver(tenant, id, actor);
    return userView(await this.users.update(tenant, id, body));
  }

  async deleteUser(tenant: string, id: string, actor: AdminPrincipal): Promise<void> {
    await this.requireRightsOver(tenant, id, actor);
    await this.users.delete(tenant, id);
  }

  async listRoles(tenant: string): Promise<z.output<typeof RoleListSchema>> {
    return { roles: (await this.roles.list(tenant)).map(roleView) };
  }

  async getRole(tenant: string, name: string): Promise<RoleView> {
    return roleView(await this.roles.get(tenant, name));
  }

  async putRole(tenant: string, name: string, body: PutRoleBody): Promise<z.output<typeof RolePutResultSchema>> {
    const { created, role } = await this.roles.put(tenant, {
      name,
      scopes: body.scopes,
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.scopeDescriptions === undefined ? {} : { scopeDescriptions: body.scopeDescriptions }),
    });
    return { created, role: roleView(role) };
  }

  deleteRole(tenant: string, name: string): Promise<void> {
    return this.roles.delete(tenant, name);
  }

  /**
   * A tenant administrator manages the tenant's users, but not a platform administrator who happens
   * to belong to the tenant: resetting that password would hand over the whole platform.
   */
  private async requireRightsOver(tenant: string, id: string, actor: AdminPrincipal): Promise<void> {
    if (actor.roles.includes(PLATFORM_ADMIN_ROLE)) return;
    const target = await this.users.get(tenant, id);
    if (target.platformAdmin) throw new AdminApiError(AdminErrorCode.Forbidden, 'only a platform administrator may change or delete a platform administrator');
  }
}

function tenantView(tenant: Tenant): TenantView {
  return { slug: tenant.slug, name: tenant.name, disabled: tenant.disabled, createdAt: tenant.createdAt.toISOString() };
}

// Field by field, so nothing the account gains later (a hash, a secret) leaks by default.
function userView(user: UserAccount): UserView {
  return { id: user.id, username: user.username, tenant: user.tenant, platformAdmin: user.platformAdmin, roles: user.roles, disabled: user.disabled };
}

function roleView(role: Role): RoleView {
  return {
    name: role.name,
    ...(role.description === undefined ? {} : { description: role.description }),
    scopes: role.scopes,
    ...(role.scopeDescriptions === undefined ? {} : { scopeDescriptions: role.scopeDescriptions }),
    builtIn: role.builtIn,
  };
}
