import { Injectable, Logger } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import type { RawUpload } from './admin-raw-upload';
import type { SkillList, SkillUploadQuery, SkillUploadResult, SkillView } from './skill-admin.schemas';
import { fixedSizeChunks, uploadTooLarge } from './upload-chunks';

const CHUNK_BYTES = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;

/**
 * A tenant's skills as the admin API manages them, each operation one resource store RPC. An upload
 * streams the archive into the store in chunks (the resource uploads' appends) under the store's
 * archive limit; the store unpacks, validates and writes it at the commit, or refuses it whole.
 */
@Injectable()
export class SkillAdminService {
  private readonly logger = new Logger(SkillAdminService.name);

  constructor(private readonly bus: MessageBus) {}

  list(tenant: string): Promise<SkillList> {
    return this.bus.request(resourceStore.listTenantSkills, { tenant });
  }

  get(tenant: string, name: string): Promise<SkillView> {
    return this.bus.request(resourceStore.getTenantSkill, { tenant, name });
  }

  async upload(tenant: string, name: string, query: SkillUploadQuery, upload: RawUpload): Promise<SkillUploadResult> {
    const { uploadId, maxArchiveBytes } = await this.bus.request(resourceStore.beginSkillUpload, {
      tenant,
      name,
      ...(query.servers === undefined ? {} : { servers: query.servers }),
      ...(upload.declaredBytes === undefined ? {} : { declaredBytes: upload.declaredBytes }),
    });
    let committed = false;
    try {
      if (upload.declaredBytes !== undefined && upload.declaredBytes > maxArchiveBytes) throw uploadTooLarge(maxArchiveBytes);
      let offset = 0;
      for await (const chunk of fixedSizeChunks(upload.stream, CHUNK_BYTES, maxArchiveBytes)) {
        await this.bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset, data: chunk.toString('base64') });
        offset += chunk.length;
      }
      const result = await this.bus.request(resourceStore.commitSkillUpload, { tenant, uploadId, totalBytes: offset });
      committed = true;
      return result;
    } finally {
      if (!committed) await this.abortUpload(tenant, uploadId);
    }
  }

  setServers(tenant: string, name: string, servers: string[]): Promise<SkillView> {
    return this.bus.request(resourceStore.setSkillServers, { tenant, name, servers });
  }

  async delete(tenant: string, name: string): Promise<void> {
    await this.bus.request(resourceStore.deleteSkill, { tenant, name });
  }

  /** Drops an upload that will not be committed (the commit removes its own, refused or not); a failure leaves it to the idle sweep. */
  private async abortUpload(tenant: string, uploadId: string): Promise<void> {
    try {
      await this.bus.request(resourceStore.abortResourceUpload, { tenant, uploadId });
    } catch (error) {
      this.logger.warn(`aborting skill upload ${uploadId} of tenant ${tenant} failed (the store drops it once idle): ${(error as Error).message}`);
    }
  }
}
