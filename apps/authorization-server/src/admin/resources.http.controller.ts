import { Delete, Get, Put } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam, ZodQuery } from './admin-openapi.decorators';
import {
  ResourceBodySchema,
  ResourceListSchema,
  ResourcePutResultSchema,
  ResourceUriSchema,
  ResourceViewSchema,
  TenantSlugSchema,
  type ResourceBody,
} from './resource-admin.schemas';
import { ResourceAdminService } from './resource-admin.service';

const URI_DESCRIPTION = 'The resource\'s absolute URI, percent-encoded (e.g. `curl --url-query "uri=demo://guide"`)';

/**
 * A tenant's resources in the resource store: text, or bytes uploaded as base64 (`blob` with its
 * `mimeType`). One resource is addressed by `?uri=` under `/resources/by-uri`, since a URI holds
 * slashes and colons that do not fit one path segment.
 */
@AdminController({ path: 'tenants/:tenant/resources', tag: 'resources', access: 'tenant' })
export class ResourcesHttpController {
  constructor(private readonly resources: ResourceAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listResources', summary: "List the tenant's resources (without content)", response: ResourceListSchema, errors: [503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.resources.listResources(tenant);
  }

  @Get('by-uri')
  @AdminRoute({ operationId: 'getResource', summary: 'Get a resource with its content (a blob as base64)', response: ResourceViewSchema, errors: [404, 503] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string) {
    return this.resources.getResource(tenant, uri);
  }

  @Put('by-uri')
  @AdminRoute({
    operationId: 'putResource',
    summary: 'Create or replace a resource (text, or a binary upload as base64 `blob`)',
    description:
      'Exactly one of `text` and `blob`; at most 512 KiB of content per resource, and the tenant quota applies (413 when it would be exceeded). ' +
      'Subscribers of the URI hear `notifications/resources/updated`, the servers exposing it `list_changed`.',
    response: ResourcePutResultSchema,
    errors: [413, 503],
  })
  put(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string, @ZodBody(ResourceBodySchema) body: ResourceBody) {
    return this.resources.putResource(tenant, uri, body);
  }

  @Delete('by-uri')
  @AdminRoute({ operationId: 'deleteResource', summary: 'Delete a resource', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string) {
    return this.resources.deleteResource(tenant, uri);
  }
}
