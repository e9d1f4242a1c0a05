import { Inject, Injectable } from '@nestjs/common';
import { type Principal, resourceStore } from '@mcp-platform/protocol-contracts';
import type { ReadResourceResult, Resource, ResourceTemplate } from '@mcp-platform/protocol-mcp';
import { MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { READ_CACHE_MAX_CONTENT_BYTES } from '../resource-store.constants';
import { RESOURCE_LIMITS, type ResourceLimits } from '../resource-store.options';
import { parseDefinition, type PutOutcome, sameJson, touchedServers } from '../store/definition-writes';
import { decodeListCursor, PAGE_SIZE, toPage } from '../store/list-cursor';
import { ResourceDefinitionSchema, type ResourceTemplateDefinition, ResourceTemplateDefinitionSchema, type UpstreamOrigin } from '../store/store.types';
import { assertTenantAccess, cacheScopeOf, LIST_TTL_MS, READ_TTL_MS } from '../store/tenant-access';
import { UpstreamCalls } from '../upstream-items/upstream-calls';
import { upstreamItemRefusal } from '../upstream-items/upstream-refusals';
import { overQuota, overResourceLimit } from './content-limits';
import { refuseSkillUri } from './reserved-uris';
import { type ReadTicket, ResourceReadCache } from './resource-read.cache';
import { ResourceTemplatesRepository, type ServedTemplate } from './resource-templates.repository';
import { type ContentEncoding, type ResourceHead, ResourcesRepository, type StoredResource } from './resources.repository';
import { fillTextRecipe } from './text-recipe';
import { matchUriTemplate, parseUriTemplate } from './uri-template';

/** The virtual server a request addresses (see `resourceStore.VirtualServerAddressSchema`). */
export interface ServerAddress {
  tenant: string;
  server: string;
  public: boolean;
}

/** The caching hints of a read (S-247, S-248). */
interface ReadHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * resources/list, resources/templates/list and resources/read for one virtual server (S-199..S-214),
 * and the write path of resources and templates with the tenant quota and the change events. Every
 * write drops the tenant's cached reads (`ResourceReadCache`) on this replica before it answers.
 */
@Injectable()
export class ResourcesService {
  constructor(
    private readonly resources: ResourcesRepository,
    private readonly templates: ResourceTemplatesRepository,
    private readonly bus: MessageBus,
    @Inject(RESOURCE_LIMITS) private readonly limits: ResourceLimits,
    private readonly readCache: ResourceReadCache,
    private readonly upstreams: UpstreamCalls,
  ) {}

  async listResources(address: ServerAddress, cursor: string | undefined, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const rows = await this.resources.listResources(address.tenant, address.server, after, PAGE_SIZE + 1);
    const { items, nextCursor } = toPage<Resource>(rows, (resource) => resource.uri);
    return { resources: items, ...(nextCursor ? { nextCursor } : {}), ttlMs: LIST_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  async listResourceTemplates(address: ServerAddress, cursor: string | undefined, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const rows = await this.templates.listTemplates(address.tenant, address.server, after, PAGE_SIZE + 1);
    const { items, nextCursor } = toPage<ResourceTemplate>(rows, (template) => template.name);
    return { resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}), ttlMs: LIST_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  /**
   * A stored resource first, else the first of the server's templates (by name) matching the URI.
   * Nothing: `NOT_FOUND` with the URI (S-209, S-210; never an empty `contents` for a found one).
   *
   * A stored content over `RESOURCE_CONTENT_CHUNK_BYTES` goes to a caller accepting chunks as its first
   * chunk, size and version (`chunked`, with empty `contents`); the caller reads the rest with
   * `readChunk`. A caller that does not accept chunks gets up to `MAX_RESOURCE_CONTENT_BYTES` whole.
   *
   * Served from the replica's `ResourceReadCache` when it holds the answer: a stored content up to
   * `READ_CACHE_MAX_CONTENT_BYTES` (the same whether or not the caller accepts chunks), the absence
   * of a stored resource, and the server's templates. The hints are added here, per request.
   *
   * An upstream item (a resource an upstream source lists, or a URI one of its templates matches, with
   * the same precedence) is read by the tool executor with the caller's principal: whole (no chunks), never
   * cached here, and with `ttlMs: 0` (the store cannot say how long the upstream's content stays fresh).
   */
  async read(address: ServerAddress, uri: string, principal: Principal | undefined, acceptChunks = false) {
    const caller = assertTenantAccess(principal, address.tenant);
    const hints = { ttlMs: READ_TTL_MS, cacheScope: cacheScopeOf(address.public) };
    // Taken before any query: what a read began before a write must not outlive that write.
    const ticket = this.readCache.begin(address.tenant);
    const cached = this.readCache.getRead(address.tenant, address.server, uri);
    if (cached?.kind === 'content') return { contents: [cached.content], ...hints };
    if (!cached) {
      const headBytes = acceptChunks ? resourceStore.RESOURCE_CONTENT_CHUNK_BYTES : resourceStore.MAX_RESOURCE_CONTENT_BYTES;
      const stored = await this.resources.readResourceHead(address.tenant, address.server, uri, headBytes);
      if (stored?.upstream) return this.readUpstream(address, stored.upstream, uri, caller);
      if (stored) return this.servedStored(ticket, address, uri, stored, headBytes, acceptChunks, hints);
      this.readCache.putRead(ticket, address.server, uri, { kind: 'absent' });
    }
    for (const template of await this.serverTemplates(ticket, address.server)) {
      const values = matchUriTemplate(parseUriTemplate(template.uriTemplate), uri);
      if (!values) continue;
      if (template.upstream) return this.readUpstream(address, template.upstream, uri, caller);
      const text = fillTextRecipe(template.text, values, template.mimeType);
      return { contents: [{ uri, ...(template.mimeType ? { mimeType: template.mimeType } : {}), text }], ...hints };
    }
    throw new RpcError(WireErrorCode.NotFound, `Resource ${uri} not found`, { uri });
  }

  /**
   * `length` bytes from `offset` of the content `read` announced as `chunked`, if it is still at
   * `version` on this server; `{ changed: true }` once it was rewritten, deleted or taken off the server.
   */
  async readChunk(address: ServerAddress, slice: { uri: string; offset: number; length: number; version: number }, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const read = await this.resources.readContentSlice({
      tenant: address.tenant,
      server: address.server,
      uri: slice.uri,
      offset: slice.offset,
      length: slice.length,
      version: slice.version,
    });
    return read ? { data: read.data.toString('base64') } : { changed: true as const };
  }

  /**
   * The admin download's chunk: `length` bytes from `offset` of the tenant's resource, with its size,
   * version and type. Without `version`, the current content (`NOT_FOUND` `{ uri }` when there is none);
   * with it, `{ changed: true }` once the content is another.
   */
  async readDefinitionChunk(tenant: string, slice: { uri: string; offset: number; length: number; version?: number | undefined }) {
    const read = await this.resources.readContentSlice({
      tenant,
      uri: slice.uri,
      offset: slice.offset,
      length: slice.length,
      ...(slice.version === undefined ? {} : { version: slice.version }),
    });
    if (read) {
      return {
        data: read.data.toString('base64'),
        size: read.size,
        version: read.version,
        encoding: read.encoding,
        ...(read.mimeType ? { mimeType: read.mimeType } : {}),
      };
    }
    if (slice.version !== undefined) return { changed: true as const };
    throw new RpcError(WireErrorCode.NotFound, `Resource ${slice.uri} not found`, { uri: slice.uri });
  }

  /**
   * Creates or replaces a resource of the tenant, refusing content that would take the tenant over
   * its quota (`INVALID_PARAMS` with `data.quotaBytes`). An identical resource is left alone, so
   * seeding at every boot announces nothing. Announces `resourceUpdated` for a changed resource and
   * `listChanged` when the list entry is new or different.
   */
  async putResource(tenant: string, input: unknown): Promise<PutOutcome> {
    const resource = parseDefinition(ResourceDefinitionSchema, input);
    refuseSkillUri(resource.uri);
    await this.refuseUpstreamResource(tenant, resource.uri);
    const size = resource.blob === undefined ? Buffer.byteLength(resource.text ?? '', 'utf8') : Buffer.from(resource.blob, 'base64').length;
    if (size > this.limits.maxResourceBytes) throw overResourceLimit(this.limits.maxResourceBytes, size);
    const existing = await this.resources.findTenantResource(tenant, resource.uri);
    if (existing && sameJson({ ...existing, size: undefined }, { ...resource, size: undefined })) return 'unchanged';
    const write = await this.writing(tenant, () => this.resources.writeResourceWithin(tenant, resource, size, this.limits.tenantQuotaBytes));
    if (write.refused) throw overQuota(tenant, this.limits.tenantQuotaBytes, write.usedBytes, size);
    const outcome = write.outcome;
    if (outcome === 'updated') this.bus.emit(resourceStore.resourceUpdated, { tenant, uri: resource.uri });
    // New content of the same size leaves every list as it was: subscribers hear it, list readers need not.
    if (!existing || !sameJson(listEntryOf(existing), listEntryOf({ ...resource, size }))) {
      this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(existing?.servers, resource.servers), lists: ['resources'] });
    }
    return outcome;
  }

  /** Creates or replaces a resource template; a malformed URI template is `INVALID_PARAMS`. */
  async putResourceTemplate(tenant: string, input: unknown): Promise<PutOutcome> {
    const template = parseDefinition(ResourceTemplateDefinitionSchema, input);
    await this.refuseUpstreamTemplate(tenant, template.name);
    const existing = await this.templates.findTenantTemplate(tenant, template.name);
    if (existing && sameJson(existing, template)) return 'unchanged';
    const outcome = await this.writing(tenant, () => this.templates.writeTemplate(tenant, template));
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(existing?.servers, template.servers), lists: ['resources'] });
    return outcome;
  }

  /** Every resource of the tenant without content (the admin list). */
  async listResourceDefinitions(tenant: string) {
    return { resources: await this.resources.tenantResources(tenant) };
  }

  /** One resource of the tenant with its content (left out over `MAX_RESOURCE_CONTENT_BYTES`); `NOT_FOUND` `{ uri }` when absent. */
  async getResourceDefinition(tenant: string, uri: string): Promise<StoredResource> {
    const resource = await this.resources.findTenantResource(tenant, uri);
    if (!resource) throw new RpcError(WireErrorCode.NotFound, `Resource ${uri} not found`, { uri });
    return resource;
  }

  /** `putResource` for the admin API: whether it created the resource, and the resource as stored. */
  async putResourceDefinition(tenant: string, input: unknown): Promise<{ created: boolean; resource: StoredResource }> {
    const outcome = await this.putResource(tenant, input);
    const { uri } = parseDefinition(ResourceDefinitionSchema, input);
    return { created: outcome === 'created', resource: await this.getResourceDefinition(tenant, uri) };
  }

  /**
   * Deletes a resource (`NOT_FOUND` when absent). Subscribers of its URI hear `resourceUpdated`
   * (a read now answers `NOT_FOUND`), the servers that exposed it `listChanged`.
   */
  async deleteResource(tenant: string, uri: string): Promise<{ deleted: true }> {
    refuseSkillUri(uri);
    await this.refuseUpstreamResource(tenant, uri);
    const servers = await this.writing(tenant, () => this.resources.deleteResource(tenant, uri));
    if (servers === undefined) throw new RpcError(WireErrorCode.NotFound, `Resource ${uri} not found`, { uri });
    this.bus.emit(resourceStore.resourceUpdated, { tenant, uri });
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(undefined, servers), lists: ['resources'] });
    return { deleted: true };
  }

  /** Every resource template of the tenant with its recipe (the admin list). */
  async listResourceTemplateDefinitions(tenant: string) {
    return { resourceTemplates: await this.templates.tenantTemplates(tenant) };
  }

  /** One resource template of the tenant; `NOT_FOUND` `{ name }` when absent. */
  async getResourceTemplateDefinition(tenant: string, name: string): Promise<ResourceTemplateDefinition> {
    const template = await this.templates.findTenantTemplate(tenant, name);
    if (!template) throw new RpcError(WireErrorCode.NotFound, `Resource template ${name} not found`, { name });
    return template;
  }

  /** `putResourceTemplate` for the admin API: whether it created the template, and the template as stored. */
  async putResourceTemplateDefinition(tenant: string, input: unknown): Promise<{ created: boolean; resourceTemplate: ResourceTemplateDefinition }> {
    const outcome = await this.putResourceTemplate(tenant, input);
    const { name } = parseDefinition(ResourceTemplateDefinitionSchema, input);
    return { created: outcome === 'created', resourceTemplate: await this.getResourceTemplateDefinition(tenant, name) };
  }

  /** Deletes a resource template (`NOT_FOUND` when absent); the servers that exposed it hear `listChanged`. */
  async deleteResourceTemplate(tenant: string, name: string): Promise<{ deleted: true }> {
    await this.refuseUpstreamTemplate(tenant, name);
    const servers = await this.writing(tenant, () => this.templates.deleteTemplate(tenant, name));
    if (servers === undefined) throw new RpcError(WireErrorCode.NotFound, `Resource template ${name} not found`, { name });
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(undefined, servers), lists: ['resources'] });
    return { deleted: true };
  }

  /**
   * Refuses an administrator's write (put, delete, upload) of a URI an upstream resource holds: it is
   * the source's to change (`INVALID_PARAMS`, `data.code` `UPSTREAM_ITEM`, naming the source).
   */
  async refuseUpstreamResource(tenant: string, uri: string): Promise<void> {
    const origin = await this.resources.upstreamOrigin(tenant, uri);
    if (origin) throw upstreamItemRefusal('resource', uri, origin);
  }

  private async refuseUpstreamTemplate(tenant: string, name: string): Promise<void> {
    const origin = await this.templates.upstreamOrigin(tenant, name);
    if (origin) throw upstreamItemRefusal('resource template', name, origin);
  }

  /** An upstream item's read, from the executor: never cached, never in chunks, `ttlMs: 0`. */
  private async readUpstream(address: ServerAddress, origin: UpstreamOrigin, uri: string, principal: Principal) {
    const contents = await this.upstreams.readResource(address.tenant, origin, uri, principal);
    return { contents, ttlMs: 0, cacheScope: cacheScopeOf(address.public) };
  }

  /** A stored resource's answer: whole (kept in the cache when small), as its first chunk, or refused as too large for one message. */
  private servedStored(
    ticket: ReadTicket,
    address: ServerAddress,
    uri: string,
    stored: ResourceHead,
    headBytes: number,
    acceptChunks: boolean,
    hints: ReadHints,
  ) {
    const base = { uri, ...(stored.mimeType ? { mimeType: stored.mimeType } : {}) };
    if (stored.size <= headBytes) {
      const content = servedContent(base, stored.encoding, stored.head);
      if (stored.size <= READ_CACHE_MAX_CONTENT_BYTES) this.readCache.putRead(ticket, address.server, uri, { kind: 'content', content });
      const contents: ReadResourceResult['contents'] = [content];
      return { contents, ...hints };
    }
    if (!acceptChunks) {
      throw new RpcError(WireErrorCode.InvalidParams, `Resource ${uri} holds ${stored.size} bytes, more than one message carries: read it in chunks`, {
        uri,
        size: stored.size,
      });
    }
    const chunked = { ...base, encoding: stored.encoding, size: stored.size, version: stored.version, firstChunk: stored.head.toString('base64') };
    return { contents: [], chunked, ...hints };
  }

  /** The server's templates, from the read cache when it holds them. */
  private async serverTemplates(ticket: ReadTicket, server: string): Promise<ServedTemplate[]> {
    const cached = this.readCache.getTemplates(ticket.tenant, server);
    if (cached) return cached;
    const templates = await this.templates.serverTemplates(ticket.tenant, server);
    this.readCache.putTemplates(ticket, server, templates);
    return templates;
  }

  /**
   * Runs a write of the tenant's resources or templates, then drops the tenant's cached reads before
   * the write is answered (also when it failed: it may have committed). Must follow the write, not
   * precede it: a read beginning in between would keep the rows it read before the commit.
   */
  private async writing<T>(tenant: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.readCache.invalidateTenant(tenant);
    }
  }
}

/** A whole content as MCP serves it (S-203): UTF-8 bytes as `text`, other bytes as a base64 `blob`. */
function servedContent(base: { uri: string; mimeType?: string }, encoding: ContentEncoding, bytes: Buffer): ReadResourceResult['contents'][number] {
  return encoding === 'text' ? { ...base, text: bytes.toString('utf8') } : { ...base, blob: bytes.toString('base64') };
}

/** What `resources/list` shows of a resource, with the servers that show it: everything but the content. */
function listEntryOf(resource: { text?: string | undefined; blob?: string | undefined; size?: number }): object {
  const { text: _text, blob: _blob, ...entry } = resource;
  return entry;
}
