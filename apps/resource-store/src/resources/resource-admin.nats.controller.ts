import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { ResourcesService } from './resources.service';
import { TenantContentService } from './tenant-content.service';

/** Administration of a tenant's resources and resource templates on the bus (the admin API calls these), and of its whole content. */
@Controller()
export class ResourceAdminNatsController {
  constructor(
    private readonly resources: ResourcesService,
    private readonly tenantContent: TenantContentService,
  ) {}

  @RpcHandler(resourceStore.listResourceDefinitions)
  listResources(request: RpcRequestParsed<typeof resourceStore.listResourceDefinitions>) {
    return this.resources.listResourceDefinitions(request.tenant);
  }

  @RpcHandler(resourceStore.getResourceDefinition)
  getResource(request: RpcRequestParsed<typeof resourceStore.getResourceDefinition>) {
    return this.resources.getResourceDefinition(request.tenant, request.uri);
  }

  @RpcHandler(resourceStore.putResourceDefinition)
  putResource(request: RpcRequestParsed<typeof resourceStore.putResourceDefinition>) {
    return this.resources.putResourceDefinition(request.tenant, request.resource);
  }

  @RpcHandler(resourceStore.readResourceDefinitionChunk)
  readResourceChunk(request: RpcRequestParsed<typeof resourceStore.readResourceDefinitionChunk>) {
    return this.resources.readDefinitionChunk(request.tenant, request);
  }

  @RpcHandler(resourceStore.deleteResourceDefinition)
  deleteResource(request: RpcRequestParsed<typeof resourceStore.deleteResourceDefinition>) {
    return this.resources.deleteResource(request.tenant, request.uri);
  }

  @RpcHandler(resourceStore.listResourceTemplateDefinitions)
  listTemplates(request: RpcRequestParsed<typeof resourceStore.listResourceTemplateDefinitions>) {
    return this.resources.listResourceTemplateDefinitions(request.tenant);
  }

  @RpcHandler(resourceStore.getResourceTemplateDefinition)
  getTemplate(request: RpcRequestParsed<typeof resourceStore.getResourceTemplateDefinition>) {
    return this.resources.getResourceTemplateDefinition(request.tenant, request.name);
  }

  @RpcHandler(resourceStore.putResourceTemplateDefinition)
  putTemplate(request: RpcRequestParsed<typeof resourceStore.putResourceTemplateDefinition>) {
    return this.resources.putResourceTemplateDefinition(request.tenant, request.resourceTemplate);
  }

  @RpcHandler(resourceStore.deleteResourceTemplateDefinition)
  deleteTemplate(request: RpcRequestParsed<typeof resourceStore.deleteResourceTemplateDefinition>) {
    return this.resources.deleteResourceTemplate(request.tenant, request.name);
  }

  @RpcHandler(resourceStore.deleteTenantContent)
  deleteTenantContent(request: RpcRequestParsed<typeof resourceStore.deleteTenantContent>) {
    return this.tenantContent.delete(request.tenant);
  }
}
