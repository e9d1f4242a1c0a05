import { Delete, Get, Put } from '@nestjs/common';
import type { AdminPrincipal } from './admin-access';
import { Actor } from './admin-auth.guard';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  ServerNameSchema,
  TenantSlugSchema,
  type VirtualServerBody,
  VirtualServerBodySchema,
  VirtualServerListSchema,
  VirtualServerPutResultSchema,
  VirtualServerViewSchema,
} from './catalog-admin.schemas';
import { CatalogAdminService } from './catalog-admin.service';

/** A tenant's virtual servers: their MCP URL, the tools they expose, public or protected. */
@AdminController({ path: 'tenants/:tenant/virtual-servers', tag: 'virtual servers', access: 'tenant' })
export class VirtualServersHttpController {
  constructor(private readonly catalog: CatalogAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listVirtualServers', summary: "List the tenant's virtual servers", response: VirtualServerListSchema, errors: [404, 503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.catalog.listServers(tenant);
  }

  @Get(':name')
  @AdminRoute({ operationId: 'getVirtualServer', summary: 'Get a virtual server', response: VirtualServerViewSchema, errors: [404, 503] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ServerNameSchema) name: string) {
    return this.catalog.getServer(tenant, name);
  }

  @Put(':name')
  @AdminRoute({
    operationId: 'putVirtualServer',
    summary: 'Create or replace a virtual server',
    description:
      'Connected clients see the change as `list_changed` where their protocol era allows. `public: true` lets anyone call the server without a token (off by default; logged at warn).',
    response: VirtualServerPutResultSchema,
    errors: [404, 503],
  })
  put(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('name', ServerNameSchema) name: string,
    @ZodBody(VirtualServerBodySchema) body: VirtualServerBody,
    @Actor() actor: AdminPrincipal,
  ) {
    return this.catalog.putServer(tenant, name, body, actor);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deleteVirtualServer', summary: 'Delete a virtual server (its MCP URL answers 404 afterwards)', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ServerNameSchema) name: string) {
    return this.catalog.deleteServer(tenant, name);
  }
}
