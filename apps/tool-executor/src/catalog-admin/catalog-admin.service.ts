import { Injectable, Logger } from '@nestjs/common';
import { RESERVED_TENANT_SLUGS, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { ServerComposition } from '../catalog/catalog.repository';
import { CatalogRepository } from '../catalog/catalog.repository';
import { CatalogService } from '../catalog/catalog.service';
import {
  type BuiltinToolConfig,
  type CatalogVirtualServer,
  DEFAULT_TOOL_TIMEOUT_MS,
  type HttpToolConfig,
  type TenantCatalog,
  type ToolDefinition,
  type ToolLastError,
  type ToolPickEntry,
  type ToolPresentation,
  type UpstreamToolConfig,
} from '../catalog/catalog.types';
import { CatalogPublisher } from '../catalog/catalog-publisher';
import { describeCollision, planExposures, presentationRefusal } from '../catalog/composition';
import { ToolLastErrorsRepository } from '../catalog/tool-last-errors.repository';
import { headersAsSet, mergeHttpHeaders } from './http-tool-headers';

type ToolRecord = toolExecutor.ToolDefinitionRecord;
type ToolView = toolExecutor.ToolDefinitionView;
type ServerRecord = toolExecutor.VirtualServerDefinitionRecord;

/**
 * The catalog as its administrators write it (the admin API calls these over the bus). Checks what
 * the contract's schemas cannot: that a tool could actually be served (its schemas compile, its
 * built-in handler exists, its URL is http or https) and that a server names only existing tools.
 * Every write reloads the tenant here, then publishes `catalogChanged` for the servers it touched,
 * so the other replicas reload and the brokers tell connected clients (`list_changed`).
 */
@Injectable()
export class CatalogAdminService {
  private readonly logger = new Logger(CatalogAdminService.name);

  constructor(
    private readonly repository: CatalogRepository,
    private readonly lastErrors: ToolLastErrorsRepository,
    private readonly catalog: CatalogService,
    private readonly publisher: CatalogPublisher,
  ) {}

  /**
   * Creates the tenant if missing and, when `disabled` is given, sets whether it is disabled. The other
   * replicas reload it (`catalogChanged` naming no server: no client hears of it); the brokers learn of
   * a disabled tenant from the authorization server's own event.
   */
  async putTenant(tenant: string, disabled?: boolean): Promise<{ created: boolean }> {
    if (RESERVED_TENANT_SLUGS.includes(tenant)) throw invalid(`"${tenant}" is reserved for the platform's own routes and cannot name a tenant`);
    const created = await this.repository.ensureTenant(tenant);
    const changed = disabled !== undefined && (await this.repository.setTenantDisabled(tenant, disabled));
    if (created) this.logger.log(`tenant ${tenant} created`);
    if (changed) this.logger.log(`tenant ${tenant} ${disabled ? 'disabled' : 'enabled'}`);
    if (created || changed) await this.publisher.published(tenant, []);
    return { created };
  }

  async deleteTenant(tenant: string): Promise<{ deleted: true }> {
    const catalog = await this.load(tenant);
    if (!(await this.repository.deleteTenant(tenant))) throw unknownTenant(tenant);
    this.logger.log(`tenant ${tenant} deleted with its ${catalog.servers.length} virtual servers and ${catalog.tools.length} tools`);
    await this.publisher.published(
      tenant,
      catalog.servers.map((server) => server.name),
    );
    return { deleted: true };
  }

  /** Every tool of the tenant with its last outbound failure, if any. */
  async listTools(tenant: string): Promise<{ tools: ToolView[] }> {
    const [catalog, lastErrors] = await Promise.all([this.load(tenant), this.lastErrors.forTenant(tenant)]);
    return { tools: catalog.tools.map((tool) => toToolView(tool, lastErrors.get(tool.id))) };
  }

  /** One tool with its last outbound failure, if any. */
  async getTool(tenant: string, name: string): Promise<ToolView> {
    const [catalog, lastErrors] = await Promise.all([this.load(tenant), this.lastErrors.forTenant(tenant)]);
    const tool = catalog.tools.find((candidate) => candidate.name === name);
    if (!tool) throw new RpcError(WireErrorCode.NotFound, `Unknown tool ${name} in tenant ${tenant}`);
    return toToolView(tool, lastErrors.get(tool.id));
  }

  /**
   * Creates or replaces a tool; the servers exposing it see the new version. An HTTP tool's header
   * values are write-only: an update names only the headers it changes (`mergeHttpHeaders`).
   */
  async putTool(tenant: string, record: ToolRecord): Promise<{ created: boolean; tool: ToolView }> {
    const catalog = await this.load(tenant);
    const stored = catalog.tools.find((tool) => tool.name === record.name);
    if (stored?.kind === 'upstream') throw belongsToUpstream(stored);
    const definition = toToolDefinition(record, stored?.kind === 'http' ? (stored.config as HttpToolConfig) : undefined);
    try {
      this.catalog.assertServable(definition);
    } catch (error) {
      throw invalid(`Tool ${definition.name} cannot be served: ${(error as Error).message}`);
    }
    const created = !catalog.tools.some((tool) => tool.name === definition.name);
    if (await this.repository.saveTool(tenant, definition)) {
      this.logger.log(`tool ${tenant}/${definition.name} ${created ? 'created' : 'updated'}`);
      await this.publisher.published(tenant, serversExposing(catalog, definition.name));
    }
    return { created, tool: toToolView(definition) };
  }

  /** Deletes a tool; the servers that exposed it stop exposing it (the join rows cascade). */
  async deleteTool(tenant: string, name: string): Promise<{ deleted: true }> {
    const catalog = await this.load(tenant);
    const stored = catalog.tools.find((tool) => tool.name === name);
    if (stored?.kind === 'upstream') throw belongsToUpstream(stored);
    if (!(await this.repository.deleteTool(tenant, name))) throw new RpcError(WireErrorCode.NotFound, `Unknown tool ${name} in tenant ${tenant}`);
    this.logger.log(`tool ${tenant}/${name} deleted`);
    await this.publisher.published(tenant, serversExposing(catalog, name));
    return { deleted: true };
  }

  async listServers(tenant: string): Promise<{ servers: ServerRecord[] }> {
    const catalog = await this.load(tenant);
    return { servers: catalog.servers.map(toServerRecord) };
  }

  async getServer(tenant: string, name: string): Promise<ServerRecord> {
    const catalog = await this.load(tenant);
    const server = catalog.servers.find((candidate) => candidate.name === name);
    if (!server) throw unknownServer(tenant, name);
    return toServerRecord(server);
  }

  /**
   * Creates or replaces a virtual server: its settings and exactly the tools it exposes (composition:
   * plain names, picks with their presentation, upstream sources). Refused before anything is stored: a
   * tool or source the tenant does not have, a hidden name of another tool, arguments the tool's schema
   * does not accept, two entries exposing the same name.
   */
  async putServer(tenant: string, record: ServerRecord): Promise<{ created: boolean; server: ServerRecord }> {
    const catalog = await this.load(tenant);
    const composition = this.composition(tenant, catalog, record);
    const created = !catalog.servers.some((server) => server.name === record.name);
    const settings = {
      name: record.name,
      ...(record.title === undefined ? {} : { title: record.title }),
      ...(record.description === undefined ? {} : { description: record.description }),
      ...(record.instructions === undefined ? {} : { instructions: record.instructions }),
      public: record.public,
    };
    if (await this.repository.saveVirtualServer(tenant, settings, composition)) {
      // Anonymous access is an explicit choice of an admin: it is said out loud.
      this.logger.log(
        `virtual server ${tenant}/${record.name} ${created ? 'created' : 'updated'} (${record.public ? 'public: anonymous callers allowed' : 'protected'})`,
      );
      await this.publisher.published(tenant, [record.name]);
    }
    return { created, server: toServerRecord({ ...settings, tenant, ...composition }) };
  }

  /** The server's composition as stored, once checked against the tenant's catalog; throws `INVALID_PARAMS` saying what is wrong. */
  private composition(
    tenant: string,
    catalog: TenantCatalog,
    record: ServerRecord,
  ): ServerComposition & { picks: ToolPickEntry[]; sources: ServerSourceRow[] } {
    const toolNames = [...new Set(record.tools.filter((entry): entry is string => typeof entry === 'string'))].sort();
    const picks = record.tools
      .filter((entry): entry is toolExecutor.ToolPick => typeof entry !== 'string')
      .map(({ tool, ...presentation }): ToolPickEntry => ({ tool, name: presentation.name ?? tool, presentation: presentation as ToolPresentation }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const tools = new Map(catalog.tools.map((tool) => [tool.name, tool]));
    const unknown = [...new Set([...toolNames, ...picks.map((pick) => pick.tool)])].filter((name) => !tools.has(name)).sort();
    if (unknown.length) throw invalid(`Virtual server ${record.name} names tools tenant ${tenant} does not have: ${unknown.join(', ')}`);
    for (const pick of picks) {
      const tool = tools.get(pick.tool);
      const refusal = tool ? presentationRefusal(tool, pick.presentation) : undefined;
      if (refusal) throw invalid(`Virtual server ${record.name}: ${refusal}`);
    }
    const sourceIds = new Map((catalog.sources ?? []).map((source) => [source.name, source.id]));
    const sources: ServerSourceRow[] = [];
    for (const entry of record.sources ?? []) {
      const sourceId = sourceIds.get(entry.source);
      if (sourceId === undefined) throw invalid(`Virtual server ${record.name} names an upstream source tenant ${tenant} does not have: ${entry.source}`);
      if (sources.some((source) => source.source === entry.source))
        throw invalid(`Virtual server ${record.name} names the upstream source ${entry.source} twice`);
      const hidden = [...new Set(entry.hidden ?? [])].sort();
      const foreign = hidden.filter((name) => {
        const tool = tools.get(name);
        return tool !== undefined && (tool.kind !== 'upstream' || (tool.config as UpstreamToolConfig).source !== sourceId);
      });
      if (foreign.length)
        throw invalid(`Virtual server ${record.name}: the upstream source ${entry.source} hides tools that are not its own: ${foreign.join(', ')}`);
      sources.push({ sourceId, source: entry.source, hidden });
    }
    sources.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    const plan = planExposures({ toolNames, picks, sources }, (sourceId) =>
      catalog.tools.filter((tool) => tool.kind === 'upstream' && (tool.config as UpstreamToolConfig).source === sourceId).map((tool) => tool.name),
    );
    const collision = plan.collisions[0];
    if (collision) throw invalid(describeCollision(record.name, collision));
    return { toolNames, picks, sources };
  }

  async deleteServer(tenant: string, name: string): Promise<{ deleted: true }> {
    await this.load(tenant);
    if (!(await this.repository.deleteVirtualServer(tenant, name))) throw unknownServer(tenant, name);
    this.logger.log(`virtual server ${tenant}/${name} deleted`);
    await this.publisher.published(tenant, [name]);
    return { deleted: true };
  }

  private async load(tenant: string): Promise<TenantCatalog> {
    const catalog = await this.repository.loadTenant(tenant);
    if (!catalog) throw unknownTenant(tenant);
    return catalog;
  }
}

/** Names of the tenant's servers that expose the tool (by name, as a pick, or through its upstream source), sorted. */
function serversExposing(catalog: TenantCatalog, toolName: string): string[] {
  const tool = catalog.tools.find((candidate) => candidate.name === toolName);
  const sourceId = tool?.kind === 'upstream' ? (tool.config as UpstreamToolConfig).source : undefined;
  return catalog.servers
    .filter(
      (server) =>
        server.toolNames.includes(toolName) ||
        (server.picks ?? []).some((pick) => pick.tool === toolName) ||
        (sourceId !== undefined && (server.sources ?? []).some((source) => source.sourceId === sourceId)),
    )
    .map((server) => server.name);
}

/** A server's upstream source entry as stored. */
type ServerSourceRow = { sourceId: string; source: string; hidden: string[] };

/**
 * The catalog's form of an administrator's definition: defaults applied (`forbidden` tasks), scopes
 * once each and sorted, and an HTTP tool's headers merged with the stored ones (`storedHttp`).
 */
export function toToolDefinition(record: ToolRecord, storedHttp?: HttpToolConfig): ToolDefinition {
  return {
    name: record.name,
    ...(record.title === undefined ? {} : { title: record.title }),
    ...(record.description === undefined ? {} : { description: record.description }),
    inputSchema: record.inputSchema,
    ...(record.outputSchema === undefined ? {} : { outputSchema: record.outputSchema }),
    ...(record.annotations === undefined ? {} : { annotations: record.annotations }),
    kind: record.kind,
    config: record.kind === 'http' ? toHttpToolConfig(record.config, storedHttp) : record.config,
    timeoutMs: record.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    enabled: record.enabled,
    requiredScopes: [...new Set(record.requiredScopes)].sort(),
    taskSupport: record.execution?.taskSupport ?? 'forbidden',
  };
}

/** An HTTP tool's configuration as stored: its headers merged with the stored ones. */
function toHttpToolConfig(written: Extract<ToolRecord, { kind: 'http' }>['config'], stored: HttpToolConfig | undefined): HttpToolConfig {
  const headers = mergeHttpHeaders(written.headers, written.url, stored);
  return { url: written.url, ...(headers ? { headers } : {}), ...(written.timeoutMs === undefined ? {} : { timeoutMs: written.timeoutMs }) };
}

/** A stored tool as the admin API shows it (header values left out), with its last outbound failure when it has one. */
export function toToolView(tool: ToolDefinition & { held?: string }, lastError?: ToolLastError): ToolView {
  const common = {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    timeoutMs: tool.timeoutMs,
    enabled: tool.enabled,
    requiredScopes: tool.requiredScopes,
    // Like tools/list: the default (`forbidden`) goes unsaid.
    ...(tool.taskSupport === 'forbidden' ? {} : { execution: { taskSupport: tool.taskSupport } }),
    ...(lastError ? { lastError: { at: lastError.at.toISOString(), errorId: lastError.errorId, kind: lastError.kind, detail: lastError.detail } } : {}),
  };
  if (tool.kind === 'http') {
    const config = tool.config as HttpToolConfig;
    return {
      ...common,
      kind: 'http',
      config: {
        url: config.url,
        // Issue 13 item 7: header values (API keys) are write-only, shown only as set.
        ...(config.headers === undefined ? {} : { headers: headersAsSet(config.headers) }),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      },
    };
  }
  if (tool.kind === 'upstream') {
    const config = tool.config as UpstreamToolConfig;
    return { ...common, ...(tool.held === undefined ? {} : { held: tool.held }), kind: 'upstream', config: { source: config.sourceName, tool: config.tool } };
  }
  return { ...common, kind: 'builtin', config: { handler: (tool.config as BuiltinToolConfig).handler } };
}

/** An upstream tool is its source's: written, approved and deleted through it. */
function belongsToUpstream(tool: ToolDefinition): RpcError {
  const config = tool.config as UpstreamToolConfig;
  return invalid(`Tool ${tool.name} belongs to the upstream source ${config.sourceName}: change or remove it through the source (its items and approvals)`);
}

/** A stored server as written: plain names stay names, picks stay picks (both by exposed name), sources by name. */
function toServerRecord(server: CatalogVirtualServer): ServerRecord {
  const entries: Array<{ name: string; entry: ServerRecord['tools'][number] }> = [
    ...server.toolNames.map((name) => ({ name, entry: name })),
    ...(server.picks ?? []).map((pick) => ({ name: pick.name, entry: { tool: pick.tool, ...pick.presentation } })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sources = (server.sources ?? []).map((source) => ({ source: source.source, ...(source.hidden.length ? { hidden: source.hidden } : {}) }));
  return {
    name: server.name,
    ...(server.title === undefined ? {} : { title: server.title }),
    ...(server.description === undefined ? {} : { description: server.description }),
    ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
    public: server.public,
    tools: entries.map((entry) => entry.entry),
    ...(sources.length ? { sources } : {}),
  };
}

function invalid(message: string): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, message);
}

function unknownTenant(tenant: string): RpcError {
  return new RpcError(WireErrorCode.NotFound, `Unknown tenant ${tenant}`);
}

function unknownServer(tenant: string, name: string): RpcError {
  return new RpcError(WireErrorCode.NotFound, `Unknown virtual server ${tenant}/${name}`);
}
