import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type Repository } from 'typeorm';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { IdSource } from '@mcp-platform/shared-clock';
import { canonicalJson } from '../catalog/catalog.repository';
import type { JsonObject, UpstreamToolConfig } from '../catalog/catalog.types';
import { TenantEntity } from '../catalog/tenant.entity';
import { ToolEntity } from '../catalog/tool.entity';
import { TOOL_EXECUTOR_CONNECTION } from '../tool-executor.constants';
import type { UpstreamSource } from './upstream.types';
import { UpstreamApprovalEntity } from './upstream-approval.entity';
import { UpstreamItemEntity } from './upstream-item.entity';
import type { StoredSecrets } from './upstream-secrets';
import { UpstreamSourceEntity } from './upstream-source.entity';

/** A source as stored: the executor's view plus its sealed secrets. */
export interface StoredSource extends UpstreamSource {
  stored: StoredSecrets;
  /** Background reads in a row that failed. */
  syncFailures: number;
}

/** What a source's writer gives besides its sealed connection. */
export interface SourceFields {
  name: string;
  title?: string;
  prefix: string | null;
  policy: toolExecutor.ApprovalPolicy;
  timeoutMs?: number;
  enabled: boolean;
  servers: string[];
}

/** One upstream tool the catalog should hold for a source, after pinning. */
export interface SourceToolRow {
  name: string;
  definition: JsonObject;
  config: UpstreamToolConfig;
  timeoutMs: number;
  held: string | null;
}

/**
 * Upstream sources, their pinned items, the audit of approvals, and the catalog rows of their tools.
 * Every read and write names the tenant or a source id looked up under a tenant (DESIGN.md §6).
 */
@Injectable()
export class UpstreamSourcesRepository {
  private readonly tenants: Repository<TenantEntity>;
  private readonly sources: Repository<UpstreamSourceEntity>;
  private readonly items: Repository<UpstreamItemEntity>;
  private readonly approvals: Repository<UpstreamApprovalEntity>;

  constructor(
    @InjectDataSource(TOOL_EXECUTOR_CONNECTION) private readonly dataSource: DataSource,
    private readonly ids: IdSource,
  ) {
    this.tenants = dataSource.getRepository(TenantEntity);
    this.sources = dataSource.getRepository(UpstreamSourceEntity);
    this.items = dataSource.getRepository(UpstreamItemEntity);
    this.approvals = dataSource.getRepository(UpstreamApprovalEntity);
  }

  /** The tenant's id, or `undefined` when it does not exist. */
  async tenantId(tenant: string): Promise<string | undefined> {
    return (await this.tenants.findOneBy({ slug: tenant }))?.id;
  }

  async list(tenant: string): Promise<StoredSource[]> {
    const tenantId = await this.tenantId(tenant);
    if (!tenantId) return [];
    const rows = await this.sources.find({ where: { tenantId }, order: { name: 'ASC' } });
    return rows.map((row) => toSource(tenant, row));
  }

  async get(tenant: string, name: string): Promise<StoredSource | undefined> {
    const tenantId = await this.tenantId(tenant);
    const row = tenantId ? await this.sources.findOneBy({ tenantId, name }) : null;
    return row ? toSource(tenant, row) : undefined;
  }

  /** A source by id, within its tenant (what a catalog tool's config names). */
  async byId(tenant: string, id: string): Promise<StoredSource | undefined> {
    const tenantId = await this.tenantId(tenant);
    const row = tenantId ? await this.sources.findOneBy({ tenantId, id }) : null;
    return row ? toSource(tenant, row) : undefined;
  }

  /** Creates or replaces a source; answers whether it was created. */
  async save(tenant: string, fields: SourceFields, stored: StoredSecrets, health: toolExecutor.UpstreamHealth): Promise<boolean> {
    const tenantId = await this.tenantId(tenant);
    if (!tenantId) throw new Error(`unknown tenant ${tenant}`);
    const values = {
      title: fields.title ?? null,
      connection: stored.connection,
      secrets: stored.secrets,
      prefix: fields.prefix,
      policy: fields.policy,
      timeoutMs: fields.timeoutMs ?? null,
      enabled: fields.enabled,
      servers: fields.servers,
    };
    const existing = await this.sources.findOneBy({ tenantId, name: fields.name });
    if (existing) {
      await this.sources.update({ id: existing.id, tenantId }, values as SourceChanges);
      return false;
    }
    await this.sources.insert({ id: this.ids.newId(), tenantId, name: fields.name, health, ...values } as SourceChanges);
    return true;
  }

  async delete(tenant: string, name: string): Promise<boolean> {
    const tenantId = await this.tenantId(tenant);
    if (!tenantId) return false;
    const result = await this.sources.delete({ tenantId, name });
    return (result.affected ?? 0) > 0;
  }

  async setHealth(sourceId: string, health: toolExecutor.UpstreamHealth): Promise<void> {
    await this.sources.update({ id: sourceId }, { health } as SourceChanges);
  }

  /**
   * Claims the sources due for a background read at `now` (enabled, `next_sync_at` passed): each
   * claimed one is pushed `leaseMs` ahead in the same statement, so of several replicas asking at once
   * one gets it; the read then sets the real next time ({@link scheduleSync}). At most `limit`.
   */
  async claimDueSyncs(now: Date, leaseMs: number, limit: number): Promise<Array<{ tenant: string; id: string; failures: number }>> {
    const rows = (await this.dataSource.query(
      `UPDATE "tool_executor"."upstream_sources" AS s SET "next_sync_at" = $2
         FROM "tool_executor"."tenants" AS t
        WHERE s."id" IN (SELECT "id" FROM "tool_executor"."upstream_sources"
                          WHERE "enabled" AND "next_sync_at" <= $1 ORDER BY "next_sync_at" LIMIT $3 FOR UPDATE SKIP LOCKED)
          AND t."id" = s."tenant_id"
      RETURNING t."slug" AS "tenant", s."id" AS "id", s."sync_failures" AS "failures"`,
      [now, new Date(now.getTime() + leaseMs), limit],
    )) as unknown;
    // node-postgres answers an UPDATE … RETURNING as [rows, count]; PGlite's driver as the rows alone.
    const returned = (Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0] : rows) as Array<{ tenant: string; id: string; failures: number }>;
    return returned.map((row) => ({ tenant: row.tenant, id: row.id, failures: Number(row.failures) }));
  }

  /** When the source's catalog is to be read again, and how many reads in a row failed. */
  async scheduleSync(sourceId: string, next: Date, failures: number): Promise<void> {
    await this.sources.update({ id: sourceId }, { nextSyncAt: next, syncFailures: failures } as SourceChanges);
  }

  async itemsOf(sourceId: string): Promise<UpstreamItemEntity[]> {
    return this.items.find({ where: { sourceId }, order: { kind: 'DESC', name: 'ASC' } });
  }

  async approvalsOf(sourceId: string): Promise<UpstreamApprovalEntity[]> {
    return this.approvals.find({ where: { sourceId }, order: { approvedAt: 'DESC', id: 'ASC' }, take: 1_000 });
  }

  /** Names of the tenant's tools that belong to no source or to another one (an upstream tool may not take them). */
  async namesTakenOutside(tenant: string, sourceId: string): Promise<Set<string>> {
    const tenantId = await this.tenantId(tenant);
    if (!tenantId) return new Set();
    const rows = await this.dataSource
      .getRepository(ToolEntity)
      .createQueryBuilder('tool')
      .select('tool.name', 'name')
      .where('tool.tenant_id = :tenantId', { tenantId })
      .andWhere('(tool.source_id IS NULL OR tool.source_id <> :sourceId)', { sourceId })
      .getRawMany<{ name: string }>();
    return new Set(rows.map((row) => row.name));
  }

  /**
   * Writes a sync's outcome in one transaction: the items as pinned, the approvals it made, and the
   * source's catalog rows (created, updated, held or deleted to match `tools`). Answers whether any
   * catalog row changed.
   */
  async writeSync(
    tenant: string,
    sourceId: string,
    items: UpstreamItemEntity[],
    approvals: Array<Omit<UpstreamApprovalEntity, 'id' | 'sourceId'>>,
    tools: SourceToolRow[],
  ): Promise<boolean> {
    const tenantId = await this.tenantId(tenant);
    if (!tenantId) throw new Error(`unknown tenant ${tenant}`);
    return this.dataSource.transaction(async (manager) => {
      // The items are the sync's whole outcome: what the source no longer lists goes (items of every kind share names).
      const itemRepo = manager.getRepository(UpstreamItemEntity);
      await itemRepo.delete({ sourceId });
      for (let start = 0; start < items.length; start += ITEM_INSERT_BATCH) {
        await itemRepo.insert(items.slice(start, start + ITEM_INSERT_BATCH) as ItemChanges[]);
      }
      if (approvals.length) {
        await manager.getRepository(UpstreamApprovalEntity).insert(approvals.map((approval) => ({ id: this.ids.newId(), sourceId, ...approval })));
      }
      return writeToolRows(manager.getRepository(ToolEntity), tenantId, sourceId, tools, () => this.ids.newId());
    });
  }
}

/** Items written per statement: far under the parameter limits of PostgreSQL and PGlite. */
const ITEM_INSERT_BATCH = 200;

type SourceChanges = Parameters<Repository<UpstreamSourceEntity>['update']>[1];
type ToolChanges = Parameters<Repository<ToolEntity>['update']>[1];
type ItemChanges = Parameters<Repository<UpstreamItemEntity>['update']>[1];

async function writeToolRows(
  tools: Repository<ToolEntity>,
  tenantId: string,
  sourceId: string,
  wanted: SourceToolRow[],
  newId: () => string,
): Promise<boolean> {
  const current = await tools.findBy({ tenantId, sourceId });
  const byName = new Map(current.map((row) => [row.name, row]));
  let changed = false;
  for (const row of wanted) {
    const values = toolValues(row);
    const existing = byName.get(row.name);
    byName.delete(row.name);
    if (!existing) {
      await tools.insert({ id: newId(), tenantId, sourceId, name: row.name, ...values } as ToolChanges);
      changed = true;
    } else if (comparable(existing) !== comparable({ ...existing, ...values } as ToolEntity)) {
      await tools.update({ id: existing.id, tenantId }, values as ToolChanges);
      changed = true;
    }
  }
  if (byName.size) {
    await tools.delete({ tenantId, sourceId, id: In([...byName.values()].map((row) => row.id)) });
    changed = true;
  }
  return changed;
}

function toolValues(row: SourceToolRow) {
  const definition = row.definition;
  const execution = definition['execution'] as { taskSupport?: string } | undefined;
  return {
    title: (definition['title'] as string | undefined) ?? null,
    description: (definition['description'] as string | undefined) ?? null,
    inputSchema: definition['inputSchema'] as JsonObject,
    outputSchema: (definition['outputSchema'] as JsonObject | undefined) ?? null,
    annotations: (definition['annotations'] as JsonObject | undefined) ?? null,
    kind: 'upstream' as const,
    config: row.config,
    timeoutMs: row.timeoutMs,
    taskSupport: (['optional', 'required'].includes(execution?.taskSupport ?? '') ? execution?.taskSupport : 'forbidden') as toolExecutor.TaskSupport,
    held: row.held,
  };
}

function comparable(row: ToolEntity): string {
  const { title, description, inputSchema, outputSchema, annotations, config, timeoutMs, taskSupport, held } = row;
  return canonicalJson({ title, description, inputSchema, outputSchema, annotations, config, timeoutMs, taskSupport, held });
}

function toSource(tenant: string, row: UpstreamSourceEntity): StoredSource {
  return {
    id: row.id,
    tenant,
    name: row.name,
    ...(row.title === null ? {} : { title: row.title }),
    connection: row.connection,
    prefix: row.prefix,
    policy: row.policy,
    ...(row.timeoutMs === null ? {} : { timeoutMs: row.timeoutMs }),
    enabled: row.enabled,
    servers: row.servers,
    health: row.health,
    connectionVersion: createHash('sha256')
      .update(canonicalJson({ connection: row.connection, secrets: row.secrets }))
      .digest('base64url'),
    stored: { connection: row.connection, secrets: row.secrets },
    syncFailures: row.syncFailures,
  };
}
