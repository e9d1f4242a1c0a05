import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import type { Resource } from '@mcp-platform/protocol-mcp';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { likePrefixPattern } from '../store/like-pattern';
import { deleteReturningServers, onServer, optional, page, upsertByKey, upstreamOriginOf, type WriteOutcome } from '../store/rows';
import type { ResourceDefinition, UpstreamOrigin } from '../store/store.types';
import { lockTenantQuota, tenantBytesExcept } from '../store/tenant-quota';
import { ResourceEntity } from './resource.entity';

/**
 * A resource with its content, as the store holds it (`blob` is base64). Content over
 * `MAX_RESOURCE_CONTENT_BYTES` is left out (neither `text` nor `blob`): it does not fit one message.
 */
export type StoredResource = ResourceDefinition & { size: number };

/** How a content is served once read: UTF-8 bytes as `text`, or bytes as a base64 `blob`. */
export type ContentEncoding = 'text' | 'blob';

/** A stored resource's content start: its first bytes, and what names the whole. */
export interface ResourceHead {
  uri: string;
  mimeType?: string;
  /** Bytes of the whole content (UTF-8 for text). */
  size: number;
  version: number;
  encoding: ContentEncoding;
  /** The first bytes asked for: the whole content when `size` is no larger. */
  head: Buffer;
  /** Set for an upstream item: it holds no content (`size` 0, an empty `head`), the executor reads it. */
  upstream?: UpstreamOrigin;
}

/** Which bytes of which resource a chunk read wants; `server` absent: whatever server exposes it. */
export interface ContentSlice {
  tenant: string;
  server?: string;
  uri: string;
  offset: number;
  length: number;
  /** Only from this version: another one (or none) reads nothing. */
  version?: number;
}

/** The bytes of a slice, with what names the content they come from. */
export interface ContentSliceRead {
  data: Buffer;
  size: number;
  version: number;
  mimeType?: string;
  encoding: ContentEncoding;
}

/** A resource write checked against the tenant quota: written, or refused with the bytes already used. */
export type QuotaCheckedWrite = { refused: false; outcome: WriteOutcome } | { refused: true; usedBytes: number };

/**
 * The tenants' resources behind domain types. Every query names its tenant (DESIGN.md §6) and, for the
 * MCP side, the virtual server (a row with `servers = []` is on every server of its tenant). List
 * queries never select content columns, and content is read in slices: a page of a tenant holding large
 * blobs stays small, and no read holds more of a content than it asked for.
 */
@Injectable()
export class ResourcesRepository {
  private readonly resources: Repository<ResourceEntity>;

  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) private readonly dataSource: DataSource) {
    this.resources = dataSource.getRepository(ResourceEntity);
  }

  /** Up to `limit` resources of the server after `after` (by URI), without content. */
  async listResources(tenant: string, server: string, after: string | undefined, limit: number): Promise<Resource[]> {
    const rows = await page(onServer(this.resources.createQueryBuilder('r'), tenant, server), 'r.uri', after, limit).getMany();
    return rows.map(toResource);
  }

  /**
   * Up to `limit` URIs of the server's resources, in URI order, that start with `startsWith` and, when
   * given, with `startsWithIgnoringCase` in any ASCII case: the candidates of a template variable's
   * completion. Only the URI column is read, never content.
   */
  async serverResourceUris(
    tenant: string,
    server: string,
    prefixes: { startsWith: string; startsWithIgnoringCase?: string },
    limit: number,
  ): Promise<string[]> {
    // `uri` is COLLATE "C", so a LIKE prefix is a range of the (tenant, uri) index.
    const query = onServer(this.resources.createQueryBuilder('r'), tenant, server)
      .select('r.uri', 'uri')
      .andWhere(`r.uri LIKE :startsWith ESCAPE '\\'`, { startsWith: likePrefixPattern(prefixes.startsWith) });
    if (prefixes.startsWithIgnoringCase !== undefined) {
      query.andWhere(`r.uri ILIKE :startsWithIgnoringCase ESCAPE '\\'`, { startsWithIgnoringCase: likePrefixPattern(prefixes.startsWithIgnoringCase) });
    }
    const rows = await query.orderBy('r.uri', 'ASC').limit(limit).getRawMany<{ uri: string }>();
    return rows.map((row) => row.uri);
  }

  /**
   * The first `headBytes` bytes of the server's resource at `uri` (UTF-8 for text), its size and
   * version, in one statement; `undefined` when the server has none. Never reads more content than that.
   */
  async readResourceHead(tenant: string, server: string, uri: string, headBytes: number): Promise<ResourceHead | undefined> {
    const row = await onServer(this.resources.createQueryBuilder('r'), tenant, server)
      .select('r.uri', 'uri')
      .addSelect('r.mimeType', 'mimeType')
      .addSelect('r.size', 'size')
      .addSelect('r.version', 'version')
      .addSelect('r.blob IS NOT NULL', 'isBlob')
      .addSelect(contentBytes('r', ':headFrom', ':headBytes'), 'head')
      .addSelect('r.upstream', 'upstream')
      .andWhere('r.uri = :uri', { uri })
      .setParameters({ headFrom: 1, headBytes })
      .getRawOne<{
        uri: string;
        mimeType: string | null;
        size: number;
        version: number;
        isBlob: boolean;
        head: Uint8Array | null;
        upstream: UpstreamOrigin | null;
      }>();
    if (!row) return undefined;
    return {
      uri: row.uri,
      ...optional('mimeType', row.mimeType),
      size: Number(row.size),
      version: Number(row.version),
      encoding: row.isBlob ? 'blob' : 'text',
      head: row.head === null ? Buffer.alloc(0) : Buffer.from(row.head),
      ...optional('upstream', row.upstream),
    };
  }

  /**
   * `slice.length` bytes of a resource's content from `slice.offset`, read with SQL `substring`
   * (text as its UTF-8 bytes); `undefined` when there is no such resource (on the server, at the version)
   * or it is an upstream item (which the store holds no content of).
   */
  async readContentSlice(slice: ContentSlice): Promise<ContentSliceRead | undefined> {
    const base = this.resources.createQueryBuilder('r');
    const query = (slice.server === undefined ? base.where('r.tenant = :tenant', { tenant: slice.tenant }) : onServer(base, slice.tenant, slice.server))
      .select('r.mimeType', 'mimeType')
      .addSelect('r.size', 'size')
      .addSelect('r.version', 'version')
      .addSelect('r.blob IS NOT NULL', 'isBlob')
      .addSelect(contentBytes('r', ':sliceFrom', ':sliceLength'), 'data')
      .andWhere('r.uri = :uri', { uri: slice.uri })
      .andWhere('r.upstream IS NULL')
      .setParameters({ sliceFrom: slice.offset + 1, sliceLength: slice.length });
    if (slice.version !== undefined) query.andWhere('r.version = :version', { version: slice.version });
    const row = await query.getRawOne<{ mimeType: string | null; size: number; version: number; isBlob: boolean; data: Uint8Array }>();
    if (!row) return undefined;
    return {
      data: Buffer.from(row.data),
      size: Number(row.size),
      version: Number(row.version),
      ...optional('mimeType', row.mimeType),
      encoding: row.isBlob ? 'blob' : 'text',
    };
  }

  /**
   * One of the tenant's own resources (not an upstream item), whatever server exposes it (the write path
   * compares with it, the admin API shows it), with its content when that is at most `MAX_RESOURCE_CONTENT_BYTES`.
   */
  async findTenantResource(tenant: string, uri: string): Promise<StoredResource | undefined> {
    const { entities, raw } = await this.resources
      .createQueryBuilder('r')
      .addSelect('CASE WHEN r.size <= :inlineBytes THEN r.text END', 'inline_text')
      .addSelect('CASE WHEN r.size <= :inlineBytes THEN r.blob END', 'inline_blob')
      .where('r.tenant = :tenant', { tenant })
      .andWhere('r.uri = :uri', { uri })
      .andWhere('r.upstream IS NULL')
      .setParameter('inlineBytes', resourceStore.MAX_RESOURCE_CONTENT_BYTES)
      .getRawAndEntities<{ inline_text: string | null; inline_blob: Uint8Array | null }>();
    const [row, content] = [entities[0], raw[0]];
    if (!row) return undefined;
    if (row.size > resourceStore.MAX_RESOURCE_CONTENT_BYTES) {
      const { text: _text, blob: _blob, ...withoutContent } = toStoredResource(row);
      return withoutContent;
    }
    return toStoredResource(Object.assign(row, { text: content?.inline_text ?? null, blob: content?.inline_blob ? Buffer.from(content.inline_blob) : null }));
  }

  /** Whether the tenant has a resource of its own at `uri` (an upload without a name must replace one). */
  async resourceExists(tenant: string, uri: string): Promise<boolean> {
    const query = this.resources.createQueryBuilder('r').where('r.tenant = :tenant', { tenant }).andWhere('r.uri = :uri', { uri });
    return (await query.andWhere('r.upstream IS NULL').getCount()) > 0;
  }

  /** The source of the tenant's upstream resource at `uri`; `undefined` when none holds it (the write paths refuse to touch one). */
  async upstreamOrigin(tenant: string, uri: string): Promise<UpstreamOrigin | undefined> {
    return upstreamOriginOf(this.resources, tenant, { uri });
  }

  /** One resource of the tenant without content (what an upload's commit answers). */
  async findTenantResourceSummary(tenant: string, uri: string): Promise<Omit<StoredResource, 'text' | 'blob'> | undefined> {
    const query = this.resources.createQueryBuilder('r').where('r.tenant = :tenant', { tenant }).andWhere('r.uri = :uri', { uri });
    const row = await query.andWhere('r.upstream IS NULL').getOne();
    if (!row) return undefined;
    const { text: _text, blob: _blob, ...summary } = toStoredResource(row);
    return summary;
  }

  /**
   * Creates or replaces the resource at `resource.uri` unless the tenant's content (the replaced
   * resource's excluded) plus `size` would exceed `maxTotalBytes`. Writes of one tenant are serialized
   * by a transaction-scoped advisory lock, so two concurrent writes cannot both squeeze under the limit.
   */
  async writeResourceWithin(tenant: string, resource: ResourceDefinition, size: number, maxTotalBytes: number): Promise<QuotaCheckedWrite> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantQuota(manager, tenant);
      const resources = manager.getRepository(ResourceEntity);
      const usedBytes = await tenantBytesExcept(manager, tenant, { uri: resource.uri });
      if (usedBytes + size > maxTotalBytes) return { refused: true, usedBytes };
      const values = {
        name: resource.name,
        title: resource.title ?? null,
        description: resource.description ?? null,
        mimeType: resource.mimeType ?? null,
        size,
        annotations: (resource.annotations as Record<string, unknown> | undefined) ?? null,
        icons: (resource.icons as Record<string, unknown>[] | undefined) ?? null,
        text: resource.text ?? null,
        blob: resource.blob === undefined ? null : Buffer.from(resource.blob, 'base64'),
        servers: resource.servers,
      };
      return { refused: false, outcome: await upsertByKey(resources, tenant, { uri: resource.uri }, values) };
    });
  }

  /** Every resource of the tenant's own by URI (upstream items are the executor's to show), without content (the admin list). */
  async tenantResources(tenant: string): Promise<Array<Omit<StoredResource, 'text' | 'blob'>>> {
    const query = this.resources.createQueryBuilder('r').where('r.tenant = :tenant', { tenant }).andWhere('r.upstream IS NULL');
    const rows = await query.orderBy('r.uri', 'ASC').getMany();
    return rows.map((row) => {
      const { text: _text, blob: _blob, ...summary } = toStoredResource(row);
      return summary;
    });
  }

  /** Deletes the tenant's resource at `uri`; the servers that exposed it, or `undefined` when there was none. */
  async deleteResource(tenant: string, uri: string): Promise<string[] | undefined> {
    return deleteReturningServers(this.resources, tenant, { uri });
  }
}

/**
 * SQL for `length` bytes of a resource's content from the 1-based position `from` (both parameter
 * placeholders): `substring` on the bytea, or on the text's UTF-8 bytes, so only the slice leaves the database.
 */
function contentBytes(alias: string, from: string, length: string): string {
  return `CASE WHEN ${alias}.blob IS NOT NULL THEN substring(${alias}.blob FROM ${from} FOR ${length}) ELSE substring(convert_to(${alias}.text, 'UTF8') FROM ${from} FOR ${length}) END`;
}

function toResource(row: ResourceEntity): Resource {
  return {
    uri: row.uri,
    name: row.name,
    ...optional('title', row.title),
    ...optional('description', row.description),
    ...optional('mimeType', row.mimeType),
    // An upstream item holds no content here: its `size` 0 would claim an empty one.
    ...(row.upstream ? {} : { size: row.size }),
    ...optional('annotations', row.annotations as Resource['annotations']),
    ...optional('icons', row.icons as Resource['icons']),
  };
}

/** The list entry plus what only administrators see: the content and the servers exposing it. */
function toStoredResource(row: ResourceEntity): StoredResource {
  return {
    ...toResource(row),
    ...(row.blob === null || row.blob === undefined ? { text: row.text ?? '' } : { blob: Buffer.from(row.blob).toString('base64') }),
    servers: row.servers,
    size: row.size,
  };
}
