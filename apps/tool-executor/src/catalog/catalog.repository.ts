import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type Repository } from 'typeorm';
import { IdSource } from '@mcp-platform/shared-clock';
import { TOOL_EXECUTOR_CONNECTION } from '../tool-executor.constants';
import { UpstreamSourceEntity } from '../upstreams/upstream-source.entity';
import type {
  CatalogTool,
  CatalogVirtualServer,
  ServerSourceEntry,
  TenantCatalog,
  ToolDefinition,
  ToolPickEntry,
  VirtualServerDefinition,
} from './catalog.types';
import { TenantEntity } from './tenant.entity';
import { ToolEntity } from './tool.entity';
import { VirtualServerEntity } from './virtual-server.entity';
import { VirtualServerSourceEntity } from './virtual-server-source.entity';
import { VirtualServerToolEntity } from './virtual-server-tool.entity';

/** What a virtual server exposes, as its writer gives it: tools by plain name or as picks, and upstream sources by name. */
export interface ServerComposition {
  toolNames: string[];
  picks?: ToolPickEntry[];
  sources?: Array<Pick<ServerSourceEntry, 'source' | 'hidden'>>;
}

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
  private readonly serverSources: Repository<VirtualServerSourceEntity>;
  private readonly upstreamSources: Repository<UpstreamSourceEntity>;

  constructor(
    @InjectDataSource(TOOL_EXECUTOR_CONNECTION) dataSource: DataSource,
    private readonly ids: IdSource,
  ) {
    this.tenants = dataSource.getRepository(TenantEntity);
    this.servers = dataSource.getRepository(VirtualServerEntity);
    this.tools = dataSource.getRepository(ToolEntity);
    this.serverTools = dataSource.getRepository(VirtualServerToolEntity);
    this.serverSources = dataSource.getRepository(VirtualServerSourceEntity);
    this.upstreamSources = dataSource.getRepository(UpstreamSourceEntity);
  }

  async listTenants(): Promise<string[]> {
    const rows = await this.tenants.find({ select: { slug: true }, order: { slug: 'ASC' } });
    return rows.map((row) => row.slug);
  }

  /** The tenant's servers and tools; `undefined` when the tenant does not exist. */
  async loadTenant(tenant: string): Promise<TenantCatalog | undefined> {
    const tenantRow = await this.tenants.findOneBy({ slug: tenant });
    if (!tenantRow) return undefined;
    const [servers, tools, sources] = await Promise.all([
      this.servers.find({ where: { tenantId: tenantRow.id }, order: { name: 'ASC' } }),
      this.tools.find({ where: { tenantId: tenantRow.id }, order: { name: 'ASC' } }),
      this.upstreamSources.find({ select: { id: true, name: true }, where: { tenantId: tenantRow.id }, order: { name: 'ASC' } }),
    ]);
    const serverIds = servers.map((server) => server.id);
    const [links, sourceLinks] = serverIds.length
      ? await Promise.all([this.serverTools.findBy({ virtualServerId: In(serverIds) }), this.serverSources.findBy({ virtualServerId: In(serverIds) })])
      : [[], []];
    const toolNameById = new Map(tools.map((tool) => [tool.id, tool.name]));
    const sourceNameById = new Map(sources.map((source) => [source.id, source.name]));
    return {
      tenant,
      disabled: tenantRow.disabled,
      tools: tools.map((row) => toCatalogTool(tenant, row)),
      servers: servers.map((row): CatalogVirtualServer => {
        const own = links.filter((link) => link.virtualServerId === row.id).sort((a, b) => compare(a.exposedName, b.exposedName));
        const picks = own.flatMap((link): ToolPickEntry[] => {
          const tool = toolNameById.get(link.toolId);
          return link.presentation === null || tool === undefined ? [] : [{ tool, name: link.exposedName, presentation: link.presentation }];
        });
        const serverSources = sourceLinks
          .filter((link) => link.virtualServerId === row.id)
          .flatMap((link): ServerSourceEntry[] => {
            const source = sourceNameById.get(link.sourceId);
            return source === undefined ? [] : [{ sourceId: link.sourceId, source, hidden: [...link.hidden].sort() }];
          })
          .sort((a, b) => compare(a.source, b.source));
        return {
          tenant,
          name: row.name,
          ...optional('title', row.title),
          ...optional('description', row.description),
          ...optional('instructions', row.instructions),
          public: row.public,
          toolNames: own
            .filter((link) => link.presentation === null)
            .map((link) => toolNameById.get(link.toolId))
            .filter((name): name is string => name !== undefined)
            .sort(),
          ...(picks.length ? { picks } : {}),
          ...(serverSources.length ? { sources: serverSources } : {}),
        };
      }),
      ...(sources.length ? { sources: sources.map((source) => ({ id: source.id, name: source.name })) } : {}),
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

  /**
   * Creates or updates a virtual server of the tenant and sets exactly what it exposes: tools by plain
   * name (a list of names, as before composition) or with their composition (picks and sources).
   */
  async saveVirtualServer(tenant: string, definition: VirtualServerDefinition, composition: string[] | ServerComposition): Promise<boolean> {
    const { toolNames, picks = [], sources = [] } = Array.isArray(composition) ? { toolNames: composition } : composition;
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
    const toolsChanged = await this.saveServerTools(tenant, tenantId, server, [...new Set(toolNames)], picks);
    const sourcesChanged = await this.saveServerSources(tenant, tenantId, server, sources);
    return changed || toolsChanged || sourcesChanged;
  }

  /** Sets the server's tool rows, keyed by exposed name: inserts the missing, updates the changed, deletes the rest. */
  private async saveServerTools(tenant: string, tenantId: string, server: VirtualServerEntity, toolNames: string[], picks: ToolPickEntry[]): Promise<boolean> {
    const names = [...new Set([...toolNames, ...picks.map((pick) => pick.tool)])];
    const found = names.length ? await this.tools.find({ select: { id: true, name: true }, where: { tenantId, name: In(names) } }) : [];
    if (found.length !== names.length) throw new Error(`virtual server ${tenant}/${server.name} names tools that do not exist`);
    const idByName = new Map(found.map((tool) => [tool.name, tool.id]));
    const wanted = new Map<string, { toolId: string; presentation: ToolPickEntry['presentation'] | null }>();
    for (const name of toolNames) wanted.set(name, { toolId: idByName.get(name) ?? '', presentation: null });
    for (const pick of picks) {
      if (wanted.has(pick.name)) throw new Error(`virtual server ${tenant}/${server.name} exposes two tools named ${pick.name}`);
      wanted.set(pick.name, { toolId: idByName.get(pick.tool) ?? '', presentation: pick.presentation });
    }
    const current = new Map((await this.serverTools.findBy({ virtualServerId: server.id })).map((link) => [link.exposedName, link]));
    const missing = [...wanted].filter(([name]) => !current.has(name));
    const differing = [...wanted].filter(([name, row]) => {
      const link = current.get(name);
      return link !== undefined && canonicalJson({ toolId: link.toolId, presentation: link.presentation }) !== canonicalJson(row);
    });
    const extra = [...current.keys()].filter((name) => !wanted.has(name));
    if (extra.length) await this.serverTools.delete({ virtualServerId: server.id, exposedName: In(extra) });
    for (const [exposedName, row] of differing) {
      await this.serverTools.update({ virtualServerId: server.id, exposedName }, row as LinkChanges);
    }
    if (missing.length) {
      await this.serverTools
        .createQueryBuilder()
        .insert()
        .values(missing.map(([exposedName, row]) => ({ virtualServerId: server.id, exposedName, ...row })) as LinkChanges[])
        .orIgnore()
        .execute();
    }
    return missing.length > 0 || differing.length > 0 || extra.length > 0;
  }

  /** Sets the server's upstream source rows, keyed by source. */
  private async saveServerSources(
    tenant: string,
    tenantId: string,
    server: VirtualServerEntity,
    sources: Array<Pick<ServerSourceEntry, 'source' | 'hidden'>>,
  ): Promise<boolean> {
    const names = sources.map((source) => source.source);
    const found = names.length ? await this.upstreamSources.find({ select: { id: true, name: true }, where: { tenantId, name: In(names) } }) : [];
    if (found.length !== new Set(names).size) throw new Error(`virtual server ${tenant}/${server.name} names upstream sources that do not exist`);
    const idByName = new Map(found.map((source) => [source.name, source.id]));
    const wanted = new Map(sources.map((source) => [idByName.get(source.source) ?? '', [...new Set(source.hidden)].sort()]));
    const current = new Map((await this.serverSources.findBy({ virtualServerId: server.id })).map((link) => [link.sourceId, link]));
    const missing = [...wanted].filter(([sourceId]) => !current.has(sourceId));
    const differing = [...wanted].filter(([sourceId, hidden]) => {
      const link = current.get(sourceId);
      return link !== undefined && canonicalJson([...link.hidden].sort()) !== canonicalJson(hidden);
    });
    const extra = [...current.keys()].filter((sourceId) => !wanted.has(sourceId));
    if (extra.length) await this.serverSources.delete({ virtualServerId: server.id, sourceId: In(extra) });
    for (const [sourceId, hidden] of differing) await this.serverSources.update({ virtualServerId: server.id, sourceId }, { hidden } as SourceLinkChanges);
    if (missing.length) {
      await this.serverSources
        .createQueryBuilder()
        .insert()
        .values(missing.map(([sourceId, hidden]) => ({ virtualServerId: server.id, sourceId, hidden })) as SourceLinkChanges[])
        .orIgnore()
        .execute();
    }
    return missing.length > 0 || differing.length > 0 || extra.length > 0;
  }

  private async requireTenantId(tenant: string): Promise<string> {
    const row = await this.tenants.findOneBy({ slug: tenant });
    if (!row) throw new Error(`unknown tenant ${tenant}`);
    return row.id;
  }
}

/** TypeORM's deep-partial type cannot see through jsonb object types; the values are checked above. */
type ToolChanges = Parameters<Repository<ToolEntity>['update']>[1];
type LinkChanges = Parameters<Repository<VirtualServerToolEntity>['update']>[1];
type SourceLinkChanges = Parameters<Repository<VirtualServerSourceEntity>['update']>[1];

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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
