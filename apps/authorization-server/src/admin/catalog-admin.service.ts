import { Inject, Injectable, Logger } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { ADMIN_API_SETTINGS, type AdminApiSettings } from './admin.constants';
import { AdminApiError, AdminErrorCode } from './admin.errors';
import type { AdminPrincipal } from './admin-access';
import type {
  ToolBody,
  ToolList,
  ToolPutResult,
  ToolView,
  VirtualServerBody,
  VirtualServerList,
  VirtualServerPutResult,
  VirtualServerView,
} from './catalog-admin.schemas';

/**
 * The tool catalog of a tenant (its tools and virtual servers) as the admin API manages it: each
 * operation is one catalog administration RPC to the tool executor, which owns the catalog,
 * validates definitions and tells brokers what changed (`catalogChanged`, then `list_changed`).
 * Wire errors pass through unchanged; the admin API's error mapper turns them into statuses.
 */
@Injectable()
export class CatalogAdminService {
  private readonly logger = new Logger('AdminCatalog');

  constructor(
    private readonly bus: MessageBus,
    @Inject(ADMIN_API_SETTINGS) private readonly settings: AdminApiSettings,
  ) {}

  async listServers(tenant: string): Promise<VirtualServerList> {
    const { servers } = await this.bus.request(toolExecutor.listServerDefinitions, { tenant });
    return { servers: servers.map((server) => this.view(tenant, server)) };
  }

  async getServer(tenant: string, name: string): Promise<VirtualServerView> {
    return this.view(tenant, await this.bus.request(toolExecutor.getServerDefinition, { tenant, name }));
  }

  async putServer(tenant: string, name: string, body: VirtualServerBody, actor: AdminPrincipal): Promise<VirtualServerPutResult> {
    const { created, server } = await this.bus.request(toolExecutor.putServerDefinition, { tenant, server: { ...body, name } });
    if (server.public) {
      // Issue 3: making a server public is an explicit, visible choice; anyone may then call its tools without a token.
      this.logger.warn({ msg: `virtual server ${tenant}/${name} is public: anonymous callers may use it`, tenant, server: name, actor: actor.subject });
    }
    return { created, server: this.view(tenant, server) };
  }

  async deleteServer(tenant: string, name: string): Promise<void> {
    await this.bus.request(toolExecutor.deleteServerDefinition, { tenant, name });
  }

  listTools(tenant: string): Promise<ToolList> {
    return this.bus.request(toolExecutor.listToolDefinitions, { tenant });
  }

  getTool(tenant: string, name: string): Promise<ToolView> {
    return this.bus.request(toolExecutor.getToolDefinition, { tenant, name });
  }

  putTool(tenant: string, name: string, body: ToolBody): Promise<ToolPutResult> {
    return this.bus.request(toolExecutor.putToolDefinition, { tenant, tool: { ...body, name } });
  }

  async deleteTool(tenant: string, name: string): Promise<void> {
    await this.bus.request(toolExecutor.deleteToolDefinition, { tenant, name });
  }

  /**
   * Disables or enables a tool: the stored definition written back with `enabled` changed. Its header
   * values never came back (write-only); written back as `{ set: true }`, the executor keeps them.
   */
  async setToolEnabled(tenant: string, name: string, enabled: boolean): Promise<ToolView> {
    const current = await this.getTool(tenant, name);
    if (current.enabled === enabled) return current;
    const { lastError: _lastError, held: _held, ...definition } = current;
    if (definition.kind === 'upstream') {
      throw new AdminApiError(
        AdminErrorCode.InvalidRequest,
        `Tool ${name} belongs to the upstream source ${definition.config.source}: it is listed or held through the source's items and approvals`,
      );
    }
    return (await this.putTool(tenant, name, { ...definition, enabled })).tool;
  }

  private view(tenant: string, server: toolExecutor.VirtualServerDefinitionRecord): VirtualServerView {
    return { ...server, url: `${this.settings.mcpPublicUrl}/${tenant}/${server.name}/mcp` };
  }
}
