import { Injectable, Logger } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { TenantContentRepository } from '../store/tenant-content.repository';
import { ResourceReadCache } from './resource-read.cache';
import { UploadRepository } from './upload.repository';

/** How many items of each kind a tenant's deletion took with it. */
export interface DeletedTenantContent {
  resources: number;
  resourceTemplates: number;
  prompts: number;
  skills: number;
}

/**
 * Everything the store holds of one tenant, as a whole. The store keys its rows by the tenant's slug,
 * so when the tenant is deleted its rows must go too: a tenant created later with the same slug (another
 * customer, perhaps) would otherwise find the old one's resources and prompts in its catalog and serve
 * them to its callers.
 */
@Injectable()
export class TenantContentService {
  private readonly logger = new Logger(TenantContentService.name);

  constructor(
    private readonly catalog: TenantContentRepository,
    private readonly uploads: UploadRepository,
    private readonly bus: MessageBus,
    private readonly readCache: ResourceReadCache,
  ) {}

  /**
   * Deletes the tenant's resources, resource templates, prompts, skills and uploads in progress; drops its cached
   * reads here and, by `listChanged` for every server and both lists, on every replica. Idempotent.
   */
  async delete(tenant: string): Promise<DeletedTenantContent> {
    let deleted: DeletedTenantContent;
    try {
      await this.uploads.deleteTenant(tenant);
      deleted = await this.catalog.deleteTenantContent(tenant);
    } finally {
      // Also after a failure: the delete may have committed.
      this.readCache.invalidateTenant(tenant);
    }
    this.bus.emit(resourceStore.listChanged, { tenant, servers: [], lists: ['resources', 'prompts'] });
    this.logger.log(
      `deleted the content of tenant ${tenant}: ${deleted.resources} resource(s), ${deleted.resourceTemplates} resource template(s), ${deleted.prompts} prompt(s), ${deleted.skills} skill(s)`,
    );
    return deleted;
  }
}
