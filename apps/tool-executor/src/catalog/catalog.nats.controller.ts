import { Controller } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { CatalogService } from './catalog.service';

/** Keeps every replica's snapshot fresh: `catalogChanged` is delivered to all of them. */
@Controller()
export class CatalogNatsController {
  constructor(private readonly catalog: CatalogService) {}

  @EventHandler(toolExecutor.catalogChanged)
  async catalogChanged(payload: { tenant: string }): Promise<void> {
    await this.catalog.reloadTenant(payload.tenant);
  }
}
