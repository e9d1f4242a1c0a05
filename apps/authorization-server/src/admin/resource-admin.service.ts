import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { ADMIN_API_SETTINGS, type AdminApiSettings } from './admin.constants';
import type { RawUpload } from './admin-raw-upload';
import type {
  PromptBody,
  PromptList,
  PromptPutResult,
  PromptView,
  ResourceBody,
  ResourceList,
  ResourcePutResult,
  ResourceTemplateBody,
  ResourceTemplateList,
  ResourceTemplatePutResult,
  ResourceTemplateView,
  ResourceUploadQuery,
  ResourceUploadResult,
  ResourceView,
} from './resource-admin.schemas';
import { fixedSizeChunks, uploadTooLarge } from './upload-chunks';

/** A resource's content on its way to an administrator: its media type, its size, and the bytes as they are read. */
export interface ResourceDownload {
  mimeType: string;
  size: number;
  content: Readable;
}

const CHUNK_BYTES = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;

/**
 * A tenant's resources, resource templates and prompts as the admin API manages them: each operation
 * is one resource store administration RPC; the store validates definitions, applies the tenant quota
 * and tells brokers what changed. Wire errors pass through unchanged; the admin API's error mapper
 * turns them into statuses (the quota refusal into 413).
 */
@Injectable()
export class ResourceAdminService {
  private readonly logger = new Logger(ResourceAdminService.name);

  constructor(
    private readonly bus: MessageBus,
    @Inject(ADMIN_API_SETTINGS) private readonly settings: AdminApiSettings,
  ) {}

  listResources(tenant: string): Promise<ResourceList> {
    return this.bus.request(resourceStore.listResourceDefinitions, { tenant });
  }

  getResource(tenant: string, uri: string): Promise<ResourceView> {
    return this.bus.request(resourceStore.getResourceDefinition, { tenant, uri });
  }

  putResource(tenant: string, uri: string, body: ResourceBody): Promise<ResourcePutResult> {
    return this.bus.request(resourceStore.putResourceDefinition, { tenant, resource: { ...body, uri } });
  }

  /**
   * Streams a raw body into the resource store as a chunked upload (begin, one append per
   * `RESOURCE_CONTENT_CHUNK_BYTES`, commit), so no more than one chunk of it is held here at a time.
   * The body is refused over `ADMIN_UPLOAD_LIMIT_BYTES` (at once when its `Content-Length` says so);
   * the store refuses over its own per-resource limit and the tenant quota. An upload that does not
   * reach its commit (a refusal, the client going away) is aborted.
   */
  async uploadResourceContent(tenant: string, uri: string, query: ResourceUploadQuery, upload: RawUpload): Promise<ResourceUploadResult> {
    const limitBytes = this.settings.uploadLimitBytes;
    if (upload.declaredBytes !== undefined && upload.declaredBytes > limitBytes) throw uploadTooLarge(limitBytes);
    const { uploadId } = await this.bus.request(resourceStore.beginResourceUpload, {
      tenant,
      uri,
      mimeType: query.mimeType ?? upload.contentType ?? 'application/octet-stream',
      ...(upload.declaredBytes === undefined ? {} : { declaredBytes: upload.declaredBytes }),
      ...(query.name === undefined ? {} : { name: query.name }),
      ...(query.title === undefined ? {} : { title: query.title }),
      ...(query.description === undefined ? {} : { description: query.description }),
      ...(query.servers === undefined ? {} : { servers: query.servers }),
    });
    let committed = false;
    try {
      let offset = 0;
      for await (const chunk of fixedSizeChunks(upload.stream, CHUNK_BYTES, limitBytes)) {
        await this.bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset, data: chunk.toString('base64') });
        offset += chunk.length;
      }
      const result = await this.bus.request(resourceStore.commitResourceUpload, { tenant, uploadId, totalBytes: offset });
      committed = true;
      return result;
    } finally {
      if (!committed) await this.abortUpload(tenant, uploadId);
    }
  }

  /**
   * A resource's content, read from the store chunk by chunk as the response is written: the first
   * chunk names the content's version and every further one asks for it. Rewritten mid-way, the
   * stream fails (the client sees a response shorter than its `Content-Length`), never mixing versions.
   */
  async downloadResourceContent(tenant: string, uri: string): Promise<ResourceDownload> {
    const first = await this.bus.request(resourceStore.readResourceDefinitionChunk, { tenant, uri, offset: 0, length: CHUNK_BYTES });
    if ('changed' in first) throw new RpcError(WireErrorCode.Internal, `${uri}: the store answered "changed" to a read naming no version`);
    const { size, version, data } = first;
    const bus = this.bus;
    async function* chunks(): AsyncGenerator<Buffer> {
      yield Buffer.from(data, 'base64');
      for (let offset = CHUNK_BYTES; offset < size; offset += CHUNK_BYTES) {
        const next = await bus.request(resourceStore.readResourceDefinitionChunk, {
          tenant,
          uri,
          offset,
          length: Math.min(CHUNK_BYTES, size - offset),
          version,
        });
        if ('changed' in next) throw new Error(`${uri} was rewritten during its download`);
        yield Buffer.from(next.data, 'base64');
      }
    }
    const fallback = first.encoding === 'text' ? 'text/plain; charset=utf-8' : 'application/octet-stream';
    return { mimeType: first.mimeType ?? fallback, size, content: Readable.from(chunks(), { objectMode: false }) };
  }

  async deleteResource(tenant: string, uri: string): Promise<void> {
    await this.bus.request(resourceStore.deleteResourceDefinition, { tenant, uri });
  }

  listResourceTemplates(tenant: string): Promise<ResourceTemplateList> {
    return this.bus.request(resourceStore.listResourceTemplateDefinitions, { tenant });
  }

  getResourceTemplate(tenant: string, name: string): Promise<ResourceTemplateView> {
    return this.bus.request(resourceStore.getResourceTemplateDefinition, { tenant, name });
  }

  putResourceTemplate(tenant: string, name: string, body: ResourceTemplateBody): Promise<ResourceTemplatePutResult> {
    return this.bus.request(resourceStore.putResourceTemplateDefinition, { tenant, resourceTemplate: { ...body, name } });
  }

  async deleteResourceTemplate(tenant: string, name: string): Promise<void> {
    await this.bus.request(resourceStore.deleteResourceTemplateDefinition, { tenant, name });
  }

  listPrompts(tenant: string): Promise<PromptList> {
    return this.bus.request(resourceStore.listPromptDefinitions, { tenant });
  }

  getPrompt(tenant: string, name: string): Promise<PromptView> {
    return this.bus.request(resourceStore.getPromptDefinition, { tenant, name });
  }

  putPrompt(tenant: string, name: string, body: PromptBody): Promise<PromptPutResult> {
    return this.bus.request(resourceStore.putPromptDefinition, { tenant, prompt: { ...body, name } });
  }

  async deletePrompt(tenant: string, name: string): Promise<void> {
    await this.bus.request(resourceStore.deletePromptDefinition, { tenant, name });
  }

  /** Drops an upload that will not be committed; a failure only leaves it to the store's idle sweep. */
  private async abortUpload(tenant: string, uploadId: string): Promise<void> {
    try {
      await this.bus.request(resourceStore.abortResourceUpload, { tenant, uploadId });
    } catch (error) {
      this.logger.warn(`aborting upload ${uploadId} of tenant ${tenant} failed (the store drops it once idle): ${(error as Error).message}`);
    }
  }
}
