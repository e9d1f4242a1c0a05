import { Get } from '@nestjs/common';
import { AdminController, AdminRoute, ZodParam } from './admin-openapi.decorators';
import { StdioServerListSchema, TenantSlugSchema } from './upstream-admin.schemas';
import { UpstreamAdminService } from './upstream-admin.service';

/** The stdio MCP servers the operator allows (`UPSTREAM_STDIO_SERVERS`), for a tenant's `stdio` upstream sources to name. */
@AdminController({ path: 'tenants/:tenant/stdio-servers', tag: 'upstreams', access: 'tenant' })
export class StdioServersHttpController {
  constructor(private readonly upstreams: UpstreamAdminService) {}

  @Get()
  @AdminRoute({
    operationId: 'listStdioServers',
    summary: 'List the stdio MCP servers the operator allows',
    description:
      "A `stdio` upstream source names one of these (`connection.server`) and fills in its parameters (`connection.params`); a secret parameter is write-only. The command they run is the operator's and never shown.",
    response: StdioServerListSchema,
    errors: [404, 503],
  })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.upstreams.listStdioServers(tenant);
  }
}
