import { Injectable } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { CatalogService } from './catalog.service';

/**
 * Tells everyone a tenant's catalog changed: this replica first (so the writer's next read through it
 * is fresh), then every executor replica (they reload the tenant) and every broker (they refresh and
 * send `list_changed` to the clients of `servers`).
 */
@Injectable()
export class CatalogPublisher {
  constructor(
    private readonly catalog: CatalogService,
    private readonly bus: MessageBus,
  ) {}

  /** `servers` absent: every server of the tenant (as this replica knows them after reloading). */
  async published(tenant: string, servers?: string[]): Promise<void> {
    await this.catalog.reloadTenant(tenant);
    const named =
      servers ??
      this.catalog
        .listServers()
        .filter((server) => server.tenant === tenant)
        .map((server) => server.name);
    this.bus.emit(toolExecutor.catalogChanged, { tenant, servers: named });
  }
}
