import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import {
  BASELINE_SCOPE,
  type ParamHeaderDeclaration,
  readParamHeaderDeclarations,
  REQUIRED_SCOPES_META_KEY,
  type Tool,
  ToolSchema,
} from '@mcp-platform/protocol-mcp';
import type { BeforeTaskInput } from '../builtin/builtin-tool';
import { BuiltinToolRegistry } from '../builtin/builtin-tool.registry';
import type { ToolImplementation } from '../tools/tool-context';
import { CatalogRepository } from './catalog.repository';
import type { CatalogTool, HttpToolConfig, TenantCatalog, ToolDefinition, UpstreamToolConfig } from './catalog.types';
import { type CompiledSchema, compileSchema } from './schema-validator';

/** A tool ready to be listed and called: its wire definition and its validators, compiled once. */
export interface PreparedTool {
  record: CatalogTool;
  /** The `Tool` object published in tools/list. */
  wire: Tool;
  input: CompiledSchema;
  output?: CompiledSchema;
  /** The arguments its input schema mirrors into `Mcp-Param-*` headers (`x-mcp-header`, S-116); often none. */
  paramHeaders: ParamHeaderDeclaration[];
  /** How it runs: a built-in implementation, or the HTTP endpoint it POSTs to. */
  runner:
    | { kind: 'builtin'; implementation: ToolImplementation; beforeTask?: BeforeTaskInput[] }
    | { kind: 'http'; config: HttpToolConfig }
    | { kind: 'upstream'; config: UpstreamToolConfig };
}

/** A virtual server and its enabled tools, sorted by name (S-179: deterministic order). */
export interface ServerSnapshot {
  server: toolExecutor.VirtualServer;
  tools: PreparedTool[];
  byName: Map<string, PreparedTool>;
  /** Upstream tools the server exposes that are held back, by name: why (calls are refused saying so). */
  held: Map<string, string>;
}

/**
 * The in-memory catalog: every virtual server with its enabled tools, loaded at boot and reloaded per
 * tenant on `catalogChanged`. tools/list and tools/call read only this snapshot, never the database.
 * Validators are cached per tool version (`id` + `updatedAt`), so a reload recompiles only what changed.
 */
@Injectable()
export class CatalogService implements OnApplicationBootstrap {
  private readonly logger = new Logger(CatalogService.name);
  private snapshot = new Map<string, Map<string, ServerSnapshot>>();
  private prepared = new Map<string, PreparedTool | null>();

  constructor(
    private readonly repository: CatalogRepository,
    private readonly builtins: BuiltinToolRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.loadAll();
  }

  async loadAll(): Promise<void> {
    const tenants = await this.repository.listTenants();
    const next = new Map<string, Map<string, ServerSnapshot>>();
    for (const tenant of tenants) {
      const catalog = await this.repository.loadTenant(tenant);
      if (catalog) next.set(tenant, this.build(catalog));
    }
    this.snapshot = next;
    this.prune();
    const servers = this.listServers();
    // Anonymous access is an explicit per-server choice of an admin: say which servers allow it (one
    // line: a start prints little at info).
    const publicServers = servers.filter((server) => server.public).map((server) => `${server.tenant}/${server.name}`);
    this.logger.log(
      `catalog loaded: ${tenants.length} tenants, ${servers.length} virtual servers; public (anonymous callers allowed): ${publicServers.length ? publicServers.join(', ') : 'none'}`,
    );
  }

  /** Re-reads one tenant (after `catalogChanged`); a tenant that no longer exists disappears. */
  async reloadTenant(tenant: string): Promise<void> {
    const catalog = await this.repository.loadTenant(tenant);
    const next = new Map(this.snapshot);
    if (catalog) next.set(tenant, this.build(catalog));
    else next.delete(tenant);
    this.snapshot = next;
    this.prune();
  }

  getServer(tenant: string, server: string): ServerSnapshot | undefined {
    return this.snapshot.get(tenant)?.get(server);
  }

  listServers(): toolExecutor.VirtualServer[] {
    return [...this.snapshot.values()].flatMap((servers) => [...servers.values()].map((entry) => entry.server));
  }

  /**
   * Throws, with a message fit for an administrator, when a definition could not be served: its wire
   * form is not a valid MCP `Tool`, a schema does not compile, or its runner is unknown or unusable.
   * The same checks that keep a bad stored tool out of the snapshot, run before it is stored.
   */
  assertServable(definition: ToolDefinition): void {
    this.compile({ ...definition, id: 'unsaved', tenant: 'unsaved', updatedAt: new Date(0) });
  }

  private build(catalog: TenantCatalog): Map<string, ServerSnapshot> {
    const tools = new Map<string, PreparedTool>();
    const heldTools = new Map<string, string>();
    for (const record of catalog.tools) {
      if (!record.enabled) continue;
      if (record.held !== undefined) {
        heldTools.set(record.name, record.held);
        continue;
      }
      const prepared = this.prepare(record);
      if (prepared) tools.set(record.name, prepared);
    }
    const servers = new Map<string, ServerSnapshot>();
    for (const server of catalog.servers) {
      const exposed = server.toolNames.map((name) => tools.get(name)).filter((tool): tool is PreparedTool => tool !== undefined);
      exposed.sort((a, b) => (a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0));
      servers.set(server.name, {
        server: {
          tenant: server.tenant,
          name: server.name,
          ...(server.title === undefined ? {} : { title: server.title }),
          ...(server.description === undefined ? {} : { description: server.description }),
          ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
          public: server.public,
          ...(catalog.disabled ? { disabled: true } : {}),
          scopes: scopesOf(exposed),
        },
        tools: exposed,
        byName: new Map(exposed.map((tool) => [tool.record.name, tool])),
        held: new Map(server.toolNames.flatMap((name) => (heldTools.has(name) ? [[name, heldTools.get(name) ?? '']] : []))),
      });
    }
    return servers;
  }

  /** Compiles a tool once per version; a tool that cannot be served safely is left out and logged. */
  private prepare(record: CatalogTool): PreparedTool | undefined {
    const key = versionKey(record);
    const cached = this.prepared.get(key);
    if (cached !== undefined) return cached ?? undefined;
    let prepared: PreparedTool | null = null;
    try {
      prepared = this.compile(record);
    } catch (error) {
      this.logger.error(`tool ${record.tenant}/${record.name} left out of the catalog: ${(error as Error).message}`);
    }
    this.prepared.set(key, prepared);
    return prepared ?? undefined;
  }

  /** The servable form of a tool; throws when it cannot be served. */
  private compile(record: CatalogTool): PreparedTool {
    const stepUpScopes = record.requiredScopes.filter((scope) => scope !== BASELINE_SCOPE);
    const parsed = ToolSchema.safeParse({
      name: record.name,
      ...(record.title === undefined ? {} : { title: record.title }),
      ...(record.description === undefined ? {} : { description: record.description }),
      inputSchema: record.inputSchema,
      ...(record.outputSchema === undefined ? {} : { outputSchema: record.outputSchema }),
      ...(record.annotations === undefined ? {} : { annotations: record.annotations }),
      // S-197: absent means `forbidden`. The broker drops it for the modern era, where tasks are an extension.
      ...(record.taskSupport === 'forbidden' ? {} : { execution: { taskSupport: record.taskSupport } }),
      // Issue 13 item 13: a tool listed to a caller who must step up says what for. The same for every
      // caller (only whether it is listed depends on the caller, S-179).
      ...(stepUpScopes.length ? { _meta: { [REQUIRED_SCOPES_META_KEY]: stepUpScopes } } : {}),
    });
    if (!parsed.success) throw new Error(`${record.name} is not a valid MCP tool: ${parsed.error.issues.map(describeIssue).join('; ')}`);
    const input = compileSchema(record.inputSchema, `inputSchema of ${record.name}`);
    const output = record.outputSchema ? compileSchema(record.outputSchema, `outputSchema of ${record.name}`) : undefined;
    // spec S-117: a tool whose x-mcp-header declarations break the rules is one clients drop; we never serve it.
    const paramHeaders = readParamHeaderDeclarations(record.inputSchema);
    if (!paramHeaders.ok) throw new Error(`inputSchema of ${record.name} has an invalid x-mcp-header declaration: ${paramHeaders.reason}`);
    return { record, wire: parsed.data, input, ...(output ? { output } : {}), paramHeaders: paramHeaders.declarations, runner: this.runnerOf(record) };
  }

  private runnerOf(record: CatalogTool): PreparedTool['runner'] {
    if (record.kind === 'http') {
      const config = record.config as HttpToolConfig;
      if (typeof config.url !== 'string') throw new Error('http tool without url');
      if (!URL.canParse(config.url) || !['http:', 'https:'].includes(new URL(config.url).protocol)) {
        throw new Error(`the URL of an HTTP tool must be http or https, not ${JSON.stringify(config.url)}`);
      }
      return { kind: 'http', config };
    }
    if (record.kind === 'upstream') {
      const config = record.config as UpstreamToolConfig;
      if (typeof config.source !== 'string' || typeof config.tool !== 'string') throw new Error('upstream tool without source or tool name');
      return { kind: 'upstream', config };
    }
    const handler = (record.config as { handler?: unknown }).handler;
    const builtin = typeof handler === 'string' ? this.builtins.tool(handler) : undefined;
    if (!builtin) throw new Error(`no built-in implementation named ${String(handler)}`);
    return { kind: 'builtin', implementation: builtin.run, ...(builtin.beforeTask === undefined ? {} : { beforeTask: builtin.beforeTask }) };
  }

  /** Forgets compiled versions no longer in the snapshot. */
  private prune(): void {
    const live = new Set<string>();
    for (const servers of this.snapshot.values()) for (const entry of servers.values()) for (const tool of entry.tools) live.add(versionKey(tool.record));
    for (const key of this.prepared.keys()) if (!live.has(key)) this.prepared.delete(key);
  }
}

/**
 * Every scope a caller may need on a server: the baseline first, then the distinct scopes its tools
 * require, sorted (the authorization server offers exactly these for the server's resource URL).
 */
function scopesOf(tools: PreparedTool[]): string[] {
  const required = new Set(tools.flatMap((tool) => tool.record.requiredScopes));
  required.delete(BASELINE_SCOPE);
  return [BASELINE_SCOPE, ...[...required].sort()];
}

function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  return issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

function versionKey(record: CatalogTool): string {
  return `${record.id}@${record.updatedAt.getTime()}`;
}
