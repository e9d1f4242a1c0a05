import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type Repository } from 'typeorm';
import { IdSource } from '@mcp-platform/shared-clock';
import { TOOL_EXECUTOR_CONNECTION } from '../tool-executor.constants';
import type { CatalogTool, CatalogVirtualServer, TenantCatalog, ToolDefinition, VirtualServerDefinition } from './catalog.types';
import { TenantEntity } from './tenant.entity';
import { ToolEntity } from './tool.entity';
import { VirtualServerEntity } from './virtual-server.entity';
import { VirtualServerToolEntity } from './virtual-server-tool.entity';

/**
 * The catalog's tables behind domain types. Every read and write names its tenant (DESIGN.md §6);
 * the only cross-tenant read is the list of tenant slugs, used to load the snapshot at boot.
 * Writes are idempotent (find, insert-or-ignore, update when different), so replicas may seed at once.
 */
@Injectable()
export class CatalogRepository {
  private readonly tenants: Repository<TenantEntity>;
  private readonly servers: Repository<VirtualServerEntity>;
  private readonly tools: Repository<ToolEntity>;
  private readonly serverTools: Repository<VirtualServerToolEntity>;

  constructor(
    @InjectDataSource(TOOL_EXECUTOR_CONNECTION) dataSource: DataSource,
    private readonly ids: IdSource,
  ) {
    this.tenants = dataSource.getRepository(TenantEntity);
    this.servers = dataSource.getRepository(VirtualServerEntity);
    this.tools = dataSource.getRepository(ToolEntity);
    this.serverTools = dataSource.getRepository(VirtualServerToolEntity);
  }

  async listTenants(): Promise<string[]> {
    const rows = await this.tenants.find({ select: { slug: true }, order: { slug: 'ASC' } });
    return rows.map((row) => row.slug);
  }

  /** The tenant's servers and tools; `undefined` when the tenant does not exist. */
  async loadTenant(tenant: string): Promise<TenantCatalog | undefined> {
    const tenantRow = await this.tenants.findOneBy({ slug: tenant });
    if (!tenantRow) return undefined;
    const [servers, tools] = await Promise.all([
      this.servers.find({ where: { tenantId: tenantRow.id }, order: { name: 'ASC' } }),
      this.tools.find({ where: { tenantId: tenantRow.id }, order: { name: 'ASC' } }),
    ]);
    const links = servers.length ? await this.serverTools.findBy({ virtualServerId: In(servers.map((server) => server.id)) }) : [];
    const toolNameById = new Map(tools.map((tool) => [tool.id, tool.name]));
    return {
      tenant,
      disabled: tenantRow.disabled,
      tools: tools.map((row) => toCatalogTool(tenant, row)),
      servers: servers.map((row): CatalogVirtualServer => ({
        tenant,
        name: row.name,
        ...optional('title', row.title),
        ...optional('description', row.description),
        ...optional('instructions', row.instructions),
        public: row.public,
        toolNames: links
          .filter((link) => link.virtualServerId === row.id)
          .map((link) => toolNameById.get(link.toolId))
          .filter((name): name is string => name !== undefined)
          .sort(),
      })),
    };
  }

  /** Creates the tenant if missing; answers whether this call created it. */
  async ensureTenant(tenant: string): Promise<boolean> {
    if (await this.tenants.existsBy({ slug: tenant })) return false;
    await this.tenants.createQueryBuilder().insert().values({ id: this.ids.newId(), slug: tenant }).orIgnore().execute();
    return true;
  }

  /** Sets whether the tenant is disabled; answers whether that changed anything. */
  async setTenantDisabled(tenant: string, disabled: boolean): Promise<boolean> {
    const result = await this.tenants.update({ slug: tenant, disabled: !disabled }, { disabled });
    return (result.affected ?? 0) > 0;
  }

  /** Deletes the tenant with its servers and tools (foreign keys cascade); answers whether it existed. */
  async deleteTenant(tenant: string): Promise<boolean> {
    const result = await this.tenants.delete({ slug: tenant });
    return (result.affected ?? 0) > 0;
  }

  /** Deletes one tool; the links of the servers exposing it go with it (cascade). Answers whether it existed. */
  async deleteTool(tenant: string, name: string): Promise<boolean> {
    const tenantId = await this.requireTenantId(tenant);
    const result = await this.tools.delete({ tenantId, name });
    return (result.affected ?? 0) > 0;
  }

  /** Deletes one virtual server and its links to tools (cascade); answers whether it existed. */
  async deleteVirtualServer(tenant: string, name: string): Promise<boolean> {
    const tenantId = await this.requireTenantId(tenant);
    const result = await this.servers.delete({ tenantId, name });
    return (result.affected ?? 0) > 0;
  }

  /** Creates or updates one tool of the tenant; answers whether anything changed. */
  async saveTool(tenant: string, definition: ToolDefinition): Promise<boolean> {
    const tenantId = await this.requireTenantId(tenant);
    const values = {
      title: definition.title ?? null,
      description: definition.description ?? null,
      inputSchema: definition.inputSchema,
      outputSchema: definition.outputSchema ?? null,
      annotations: definition.annotations ?? null,
      kind: definition.kind,
      config: definition.config,
      timeoutMs: definition.timeoutMs,
      enabled: definition.enabled,
      requiredScopes: definition.requiredScopes,
      taskSupport: definition.taskSupport,
    };
    const existing = await this.tools.findOneBy({ tenantId, name: definition.name });
    if (!existing) {
      await this.tools
        .createQueryBuilder()
        .insert()
        .values({ id: this.ids.newId(), tenantId, name: definition.name, ...values } as ToolChanges)
        .orIgnore()
        .execute();
      return true;
    }
    const current = {
      title: existing.title,
      description: existing.description,
      inputSchema: existing.inputSchema,
      outputSchema: existing.outputSchema,
      annotations: existing.annotations,
      kind: existing.kind,
      config: existing.config,
      timeoutMs: existing.timeoutMs,
      enabled: existing.enabled,
      requiredScopes: existing.requiredScopes,
      taskSupport: existing.taskSupport,
    };
    if (canonicalJson(current) === canonicalJson(values)) return false;
    await this.tools.update({ id: existing.id, tenantId }, values as ToolChanges);
    return true;
  }

  /** Creates or updates a virtual server of the tenant and sets exactly which tools it exposes. */
  async saveVirtualServer(tenant: string, definition: VirtualServerDefinition, toolNames: string[]): Promise<boolean> {
    const tenantId = await this.requireTenantId(tenant);
    const values = {
      title: definition.title ?? null,
      description: definition.description ?? null,
      instructions: definition.instructions ?? null,
      public: definition.public,
    };
    let changed = false;
    let server = await this.servers.findOneBy({ tenantId, name: definition.name });
    if (!server) {
      await this.servers
        .createQueryBuilder()
        .insert()
        .values({ id: this.ids.newId(), tenantId, name: definition.name, ...values })
        .orIgnore()
        .execute();
      server = await this.servers.findOneByOrFail({ tenantId, name: definition.name });
      changed = true;
    } else if (
      canonicalJson({ title: server.title, description: server.description, instructions: server.instructions, public: server.public }) !==
      canonicalJson(values)
    ) {
      await this.servers.update({ id: server.id, tenantId }, values);
      changed = true;
    }
    const wanted = toolNames.length ? await this.tools.find({ select: { id: true }, where: { tenantId, name: In(toolNames) } }) : [];
    if (wanted.length !== new Set(toolNames).size) throw new Error(`virtual server ${tenant}/${definition.name} names tools that do not exist`);
    const current = await this.serverTools.findBy({ virtualServerId: server.id });
    const wantedIds = new Set(wanted.map((tool) => tool.id));
    const currentIds = new Set(current.map((link) => link.toolId));
    const missing = [...wantedIds].filter((id) => !currentIds.has(id));
    const extra = [...currentIds].filter((id) => !wantedIds.has(id));
    if (missing.length) {
      await this.serverTools
        .createQueryBuilder()
        .insert()
        .values(missing.map((toolId) => ({ virtualServerId: server.id, toolId })))
        .orIgnore()
        .execute();
    }
    if (extra.length) await this.serverTools.delete({ virtualServerId: server.id, toolId: In(extra) });
    return changed || missing.length > 0 || extra.length > 0;
  }

  private async requireTenantId(tenant: string): Promise<string> {
    const row = await this.tenants.findOneBy({ slug: tenant });
    if (!row) throw new Error(`unknown tenant ${tenant}`);
    return row.id;
  }
}

/** TypeORM's deep-partial type cannot see through jsonb object types; the values are checked above. */
type ToolChanges = Parameters<Repository<ToolEntity>['update']>[1];

function toCatalogTool(tenant: string, row: ToolEntity): CatalogTool {
  return {
    id: row.id,
    tenant,
    name: row.name,
    ...optional('title', row.title),
    ...optional('description', row.description),
    inputSchema: row.inputSchema,
    ...optional('outputSchema', row.outputSchema),
    ...optional('annotations', row.annotations),
    kind: row.kind,
    config: row.config,
    timeoutMs: row.timeoutMs,
    enabled: row.enabled,
    requiredScopes: row.requiredScopes,
    taskSupport: row.taskSupport,
    updatedAt: row.updatedAt,
    ...optional('held', row.held),
  };
}

function optional<K extends string, V>(key: K, value: V | null): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** JSON with sorted keys: jsonb does not keep key order, so comparisons must not depend on it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) =>
    nested && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(Object.entries(nested as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : nested,
  );
}
