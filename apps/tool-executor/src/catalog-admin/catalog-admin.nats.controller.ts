import { Controller } from '@nestjs/common';
import { type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { CatalogAdminService } from './catalog-admin.service';

/**
 * Catalog administration on the bus (`catalog-admin.contracts.ts`): one call into the service each.
 * The caller (the admin API) has already decided the administrator may act on the tenant.
 */
@Controller()
export class CatalogAdminNatsController {
  constructor(private readonly admin: CatalogAdminService) {}

  @RpcHandler(toolExecutor.putTenant)
  putTenant(request: RpcRequestParsed<typeof toolExecutor.putTenant>) {
    return this.admin.putTenant(request.tenant, request.disabled);
  }

  @RpcHandler(toolExecutor.deleteTenant)
  deleteTenant(request: RpcRequestParsed<typeof toolExecutor.deleteTenant>) {
    return this.admin.deleteTenant(request.tenant);
  }

  @RpcHandler(toolExecutor.listToolDefinitions)
  listToolDefinitions(request: RpcRequestParsed<typeof toolExecutor.listToolDefinitions>) {
    return this.admin.listTools(request.tenant);
  }

  @RpcHandler(toolExecutor.getToolDefinition)
  getToolDefinition(request: RpcRequestParsed<typeof toolExecutor.getToolDefinition>) {
    return this.admin.getTool(request.tenant, request.name);
  }

  @RpcHandler(toolExecutor.putToolDefinition)
  putToolDefinition(request: RpcRequestParsed<typeof toolExecutor.putToolDefinition>) {
    return this.admin.putTool(request.tenant, request.tool);
  }

  @RpcHandler(toolExecutor.deleteToolDefinition)
  deleteToolDefinition(request: RpcRequestParsed<typeof toolExecutor.deleteToolDefinition>) {
    return this.admin.deleteTool(request.tenant, request.name);
  }

  @RpcHandler(toolExecutor.listServerDefinitions)
  listServerDefinitions(request: RpcRequestParsed<typeof toolExecutor.listServerDefinitions>) {
    return this.admin.listServers(request.tenant);
  }

  @RpcHandler(toolExecutor.getServerDefinition)
  getServerDefinition(request: RpcRequestParsed<typeof toolExecutor.getServerDefinition>) {
    return this.admin.getServer(request.tenant, request.name);
  }

  @RpcHandler(toolExecutor.putServerDefinition)
  putServerDefinition(request: RpcRequestParsed<typeof toolExecutor.putServerDefinition>) {
    return this.admin.putServer(request.tenant, request.server);
  }

  @RpcHandler(toolExecutor.deleteServerDefinition)
  deleteServerDefinition(request: RpcRequestParsed<typeof toolExecutor.deleteServerDefinition>) {
    return this.admin.deleteServer(request.tenant, request.name);
  }
}
