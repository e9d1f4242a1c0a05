import { Delete, Get, Put } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  ItemNameSchema,
  type ResourceTemplateBody,
  ResourceTemplateBodySchema,
  ResourceTemplateListSchema,
  ResourceTemplatePutResultSchema,
  ResourceTemplateViewSchema,
  TenantSlugSchema,
} from './resource-admin.schemas';
import { ResourceAdminService } from './resource-admin.service';

/** A tenant's resource templates (RFC 6570 level 1) with the text recipe of their reads. */
@AdminController({ path: 'tenants/:tenant/resource-templates', tag: 'resources', access: 'tenant' })
export class ResourceTemplatesHttpController {
  constructor(private readonly resources: ResourceAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listResourceTemplates', summary: "List the tenant's resource templates", response: ResourceTemplateListSchema, errors: [503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.resources.listResourceTemplates(tenant);
  }

  @Get(':name')
  @AdminRoute({ operationId: 'getResourceTemplate', summary: 'Get a resource template', response: ResourceTemplateViewSchema, errors: [404, 503] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ItemNameSchema) name: string) {
    return this.resources.getResourceTemplate(tenant, name);
  }

  @Put(':name')
  @AdminRoute({
    operationId: 'putResourceTemplate',
    summary: 'Create or replace a resource template',
    description: 'Only level-1 `{var}` expressions; operators, modifiers and adjacent variables are refused (400).',
    response: ResourceTemplatePutResultSchema,
    errors: [503],
  })
  put(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('name', ItemNameSchema) name: string,
    @ZodBody(ResourceTemplateBodySchema) body: ResourceTemplateBody,
  ) {
    return this.resources.putResourceTemplate(tenant, name, body);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deleteResourceTemplate', summary: 'Delete a resource template', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ItemNameSchema) name: string) {
    return this.resources.deleteResourceTemplate(tenant, name);
  }
}
