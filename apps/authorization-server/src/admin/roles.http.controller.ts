import { Delete, Get, Put } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  type PutRoleBody,
  PutRoleBodySchema,
  RoleListSchema,
  RoleNameSchema,
  RolePutResultSchema,
  RoleViewSchema,
  TenantSlugSchema,
} from './identity-admin.schemas';
import { IdentityAdminService } from './identity-admin.service';

/** A tenant's roles: named sets of scopes its users may obtain. */
@AdminController({ path: 'tenants/:tenant/roles', tag: 'roles', access: 'tenant' })
export class RolesHttpController {
  constructor(private readonly identity: IdentityAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listRoles', summary: "List the tenant's roles", response: RoleListSchema, errors: [404] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.identity.listRoles(tenant);
  }

  @Get(':name')
  @AdminRoute({ operationId: 'getRole', summary: 'Get a role', response: RoleViewSchema, errors: [404] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', RoleNameSchema) name: string) {
    return this.identity.getRole(tenant, name);
  }

  @Put(':name')
  @AdminRoute({
    operationId: 'putRole',
    summary: 'Create or replace a role',
    description: '`tenant-admin` is built in and always allows every scope; it cannot be replaced.',
    response: RolePutResultSchema,
    errors: [404],
  })
  put(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', RoleNameSchema) name: string, @ZodBody(PutRoleBodySchema) body: PutRoleBody) {
    return this.identity.putRole(tenant, name, body);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deleteRole', summary: 'Delete a role (its users lose it); built-in roles cannot be deleted', status: 204, errors: [404] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', RoleNameSchema) name: string) {
    return this.identity.deleteRole(tenant, name);
  }
}
