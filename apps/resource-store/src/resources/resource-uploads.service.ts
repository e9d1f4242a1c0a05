import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_SWEEP_INTERVAL_MS } from '../resource-store.constants';
import { RESOURCE_LIMITS, type ResourceLimits } from '../resource-store.options';
import { touchedServers } from '../store/definition-writes';
import { upstreamItemRefusal } from '../upstream-items/upstream-refusals';
import { overQuota, overResourceLimit } from './content-limits';
import { refuseSkillUri } from './reserved-uris';
import { ResourceReadCache } from './resource-read.cache';
import { ResourcesRepository } from './resources.repository';
import { type CommitOutcome, UploadRepository } from './upload.repository';
import { incompleteUpload, unknownUpload } from './upload-refusals';

type BeginRequest = RpcRequestParsed<typeof resourceStore.beginResourceUpload>;

/**
 * Content larger than one message, uploaded in chunks (`resource-upload.contracts.ts`): begin, append
 * in order, commit. The per-resource limit is checked on the announced size and on every append; the
 * tenant quota at the commit, under the same lock as every other write. The commit announces the
 * change like a put (`resourceUpdated` for a replaced resource, `listChanged`) and drops the tenant's
 * cached reads on this replica first.
 *
 * Abandoned uploads (the uploader went away without committing or aborting) are dropped once idle
 * for `UPLOAD_IDLE_TIMEOUT_MS`: by every upload begun, and by each replica every `UPLOAD_SWEEP_INTERVAL_MS`.
 */
@Injectable()
export class ResourceUploadsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ResourceUploadsService.name);
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly uploads: UploadRepository,
    private readonly resources: ResourcesRepository,
    private readonly bus: MessageBus,
    @Inject(RESOURCE_LIMITS) private readonly limits: ResourceLimits,
    private readonly readCache: ResourceReadCache,
  ) {}

  onModuleInit(): void {
    this.sweeper = setInterval(() => void this.sweepQuietly(), UPLOAD_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  /** Starts an upload; a new resource needs a `name` (`INVALID_PARAMS` otherwise, before any byte is sent). */
  async begin(request: BeginRequest): Promise<{ uploadId: string; maxResourceBytes: number }> {
    refuseSkillUri(request.uri);
    const upstream = await this.resources.upstreamOrigin(request.tenant, request.uri);
    if (upstream) throw upstreamItemRefusal('resource', request.uri, upstream);
    const maxResourceBytes = this.limits.maxResourceBytes;
    if (request.declaredBytes !== undefined && request.declaredBytes > maxResourceBytes) throw overResourceLimit(maxResourceBytes, request.declaredBytes);
    await this.sweepIdleUploads();
    if (request.name === undefined && !(await this.resources.resourceExists(request.tenant, request.uri))) throw unnamed(request.uri);
    const uploadId = randomUUID();
    await this.uploads.create({
      id: uploadId,
      tenant: request.tenant,
      uri: request.uri,
      mimeType: request.mimeType,
      name: request.name,
      title: request.title,
      description: request.description,
      servers: request.servers,
    });
    return { uploadId, maxResourceBytes };
  }

  /** Stages the next chunk. Past the per-resource limit, the upload is dropped and the refusal says by how much. */
  async append(tenant: string, uploadId: string, offset: number, data: string): Promise<{ receivedBytes: number }> {
    const appended = await this.uploads.append(tenant, uploadId, offset, Buffer.from(data, 'base64'), {
      resource: this.limits.maxResourceBytes,
      skill: this.limits.maxSkillArchiveBytes,
    });
    switch (appended.kind) {
      case 'appended':
        return { receivedBytes: appended.receivedBytes };
      case 'unknown':
        throw unknownUpload(uploadId);
      case 'out-of-order':
        throw new RpcError(
          WireErrorCode.InvalidParams,
          `Upload ${uploadId} has ${appended.receivedBytes} bytes: the next chunk starts there, not at ${offset}`,
          {
            uploadId,
            receivedBytes: appended.receivedBytes,
          },
        );
      case 'too-large':
        throw overResourceLimit(appended.maxBytes, appended.requestedBytes);
      default:
        return unreachable(appended);
    }
  }

  /** Writes the resource from the staged chunks and announces it; every refusal drops the upload too. */
  async commit(tenant: string, uploadId: string, totalBytes: number) {
    let committed: CommitOutcome;
    try {
      committed = await this.uploads.commitWithin(tenant, uploadId, totalBytes, this.limits.tenantQuotaBytes);
    } finally {
      // After the commit (a read in between would keep the old rows), before the answer; also after a failure that may have committed.
      this.readCache.invalidateTenant(tenant);
    }
    switch (committed.kind) {
      case 'committed': {
        if (committed.outcome === 'updated') this.bus.emit(resourceStore.resourceUpdated, { tenant, uri: committed.uri });
        this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(committed.previousServers, committed.servers), lists: ['resources'] });
        const resource = await this.resources.findTenantResourceSummary(tenant, committed.uri);
        // Deleted between the commit and this read: the write happened, but there is nothing to show.
        if (!resource) throw new RpcError(WireErrorCode.NotFound, `Resource ${committed.uri} not found`, { uri: committed.uri });
        return { created: committed.outcome === 'created', resource };
      }
      case 'unknown':
        throw unknownUpload(uploadId);
      case 'incomplete':
        throw incompleteUpload(uploadId, committed.receivedBytes, totalBytes);
      case 'other-kind':
        throw new RpcError(WireErrorCode.InvalidParams, `Upload ${uploadId} stages a ${committed.uploadKind}, not a resource's content`, { uploadId });
      case 'unnamed':
        throw unnamed(committed.uri);
      case 'upstream':
        throw upstreamItemRefusal('resource', committed.uri, committed.upstream);
      case 'over-quota':
        throw overQuota(tenant, this.limits.tenantQuotaBytes, committed.usedBytes, committed.requestedBytes);
      default:
        return unreachable(committed);
    }
  }

  async abort(tenant: string, uploadId: string): Promise<{ aborted: boolean }> {
    return { aborted: await this.uploads.abort(tenant, uploadId) };
  }

  /** Drops the uploads idle for longer than `idleMs` (default `UPLOAD_IDLE_TIMEOUT_MS`); how many. */
  async sweepIdleUploads(idleMs = UPLOAD_IDLE_TIMEOUT_MS): Promise<number> {
    const swept = await this.uploads.sweepIdle(idleMs);
    if (swept > 0) this.logger.log(`dropped ${swept} abandoned resource upload(s)`);
    return swept;
  }

  /** The periodic sweep: a failure (the database restarting) is logged and the next round tries again. */
  private async sweepQuietly(): Promise<void> {
    try {
      await this.sweepIdleUploads();
    } catch (error) {
      this.logger.warn(`sweeping abandoned uploads failed: ${(error as Error).message}`);
    }
  }
}

function unnamed(uri: string): RpcError {
  const message = 'a new resource needs a name';
  return new RpcError(WireErrorCode.InvalidParams, `Resource ${uri} does not exist: ${message}`, { issues: [{ path: ['name'], message }] });
}

function unreachable(value: never): never {
  throw new Error(`unhandled outcome: ${JSON.stringify(value)}`);
}
