import { Delete, Get, Patch, Post } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  type CreateTenantBody,
  CreateTenantBodySchema,
  TenantListSchema,
  TenantSlugSchema,
  TenantViewSchema,
  type UpdateTenantBody,
  UpdateTenantBodySchema,
} from './identity-admin.schemas';
import { IdentityAdminService } from './identity-admin.service';

/** The tenants collection: platform administrators only. */
@AdminController({ path: 'tenants', tag: 'tenants', access: 'platform' })
export class TenantsHttpController {
  constructor(private readonly identity: IdentityAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listTenants', summary: 'List the tenants', response: TenantListSchema })
  list() {
    return this.identity.listTenants();
  }

  @Post()
  @AdminRoute({
    operationId: 'createTenant',
    summary: 'Create a tenant',
    description: 'Creates its built-in roles (`tenant-admin`, `member`) and its empty tool catalog in the tool executor.',
    status: 201,
    response: TenantViewSchema,
    errors: [409, 503],
  })
  create(@ZodBody(CreateTenantBodySchema) body: CreateTenantBody) {
    return this.identity.createTenant(body);
  }

  @Get(':tenant')
  @AdminRoute({ operationId: 'getTenant', summary: 'Get a tenant', response: TenantViewSchema, errors: [404] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.identity.getTenant(tenant);
  }

  @Patch(':tenant')
  @AdminRoute({ operationId: 'updateTenant', summary: 'Rename, disable or enable a tenant', response: TenantViewSchema, errors: [404] })
  update(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodBody(UpdateTenantBodySchema) body: UpdateTenantBody) {
    return this.identity.updateTenant(tenant, body);
  }

  @Delete(':tenant')
  @AdminRoute({
    operationId: 'deleteTenant',
    summary: 'Delete a tenant with its users, roles, clients, tool catalog, resources, prompts and tasks',
    status: 204,
    errors: [404, 503],
  })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.identity.deleteTenant(tenant);
  }
}
