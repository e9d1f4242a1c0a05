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
import { canonicalJson, CatalogRepository } from './catalog.repository';
import type { CatalogTool, CatalogVirtualServer, HttpToolConfig, JsonObject, TenantCatalog, ToolDefinition, UpstreamToolConfig } from './catalog.types';
import { type Exposure, planExposures, presentationRefusal, presentedInputSchema } from './composition';
import { type CompiledSchema, compileSchema } from './schema-validator';

/**
 * A tool ready to be listed and called: its wire definition and its validators, compiled once. On a
 * server that presents it its own way (composition), `wire` is the presented tool (its `name` the
 * exposed one, which calls use) and the arguments the server sets come along; `record`, `input` and
 * the runner stay the catalog tool's.
 */
export interface PreparedTool {
  record: CatalogTool;
  /** The `Tool` object published in tools/list; `wire.name` is the name callers use on the server. */
  wire: Tool;
  /** Validates the arguments the tool runs with (the fixed and default ones merged in). */
  input: CompiledSchema;
  /** Arguments the server sets: clients may not send them (composition). */
  fixedArguments?: JsonObject;
  /** Arguments the server fills in when clients omit them (composition). */
  defaultArguments?: JsonObject;
  output?: CompiledSchema;
  /** The arguments its input schema mirrors into `Mcp-Param-*` headers (`x-mcp-header`, S-116); often none. */
  paramHeaders: ParamHeaderDeclaration[];
  /** How it runs: a built-in implementation, or the HTTP endpoint it POSTs to. */
  runner:
    | { kind: 'builtin'; implementation: ToolImplementation; beforeTask?: BeforeTaskInput[] }
    | { kind: 'http'; config: HttpToolConfig }
    | { kind: 'upstream'; config: UpstreamToolConfig };
}

/** A virtual server and its enabled tools, sorted by exposed name (S-179: deterministic order). */
export interface ServerSnapshot {
  server: toolExecutor.VirtualServer;
  tools: PreparedTool[];
  /** By exposed name (`wire.name`). */
  byName: Map<string, PreparedTool>;
  /** Upstream tools the server exposes that are held back, by exposed name: why (calls are refused saying so). */
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
  /** Why a presentation's arguments no longer fit its tool's version (`null`: they fit), by tool version and presentation. */
  private presentationChecks = new Map<string, string | null>();
  /** Name collisions already logged, by tenant (a reload logs only new ones). */
  private reportedCollisions = new Map<string, Set<string>>();

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
    const reported = this.reportedCollisions.get(catalog.tenant) ?? new Set<string>();
    const collisions = new Set<string>();
    for (const server of catalog.servers) {
      const exposed: PreparedTool[] = [];
      const held = new Map<string, string>();
      for (const exposure of this.exposuresOf(catalog, server, reported, collisions)) {
        const reason = heldTools.get(exposure.tool);
        if (reason !== undefined) held.set(exposure.name, reason);
        const prepared = tools.get(exposure.tool);
        const presented = prepared ? this.present(server, prepared, exposure) : undefined;
        if (presented) exposed.push(presented);
      }
      exposed.sort((a, b) => (a.wire.name < b.wire.name ? -1 : a.wire.name > b.wire.name ? 1 : 0));
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
        byName: new Map(exposed.map((tool) => [tool.wire.name, tool])),
        held,
      });
    }
    this.reportedCollisions.set(catalog.tenant, collisions);
    return servers;
  }

  /**
   * What the server exposes. Names were unique when the server was written; a tool a source added
   * since, whose name the server already exposes, loses (it is not exposed) and the log says so once.
   */
  private exposuresOf(catalog: TenantCatalog, server: CatalogVirtualServer, reported: Set<string>, collisions: Set<string>): Exposure[] {
    const plan = planExposures(server, (sourceId) =>
      catalog.tools.filter((tool) => tool.kind === 'upstream' && (tool.config as UpstreamToolConfig).source === sourceId).map((tool) => tool.name),
    );
    for (const collision of plan.collisions) {
      const key = `${server.name}/${collision.name}/${collision.refused}`;
      collisions.add(key);
      if (reported.has(key)) continue;
      this.logger.warn(
        `virtual server ${server.tenant}/${server.name}: ${collision.refused} is not exposed: its name ${collision.name} is taken by ${collision.kept}; hide it, or rename one of them`,
      );
    }
    return plan.exposures;
  }

  /**
   * The tool as the server presents it: renamed, its title and description replaced, its input schema
   * without the fixed arguments and with the defaults. A presentation whose arguments no longer fit the
   * tool (its schema changed since the server was written) keeps the tool off the server, logged.
   */
  private present(server: CatalogVirtualServer, prepared: PreparedTool, exposure: Exposure): PreparedTool | undefined {
    const presentation = exposure.presentation;
    if (!presentation) return prepared;
    const key = `${versionKey(prepared.record)}|${canonicalJson(presentation)}`;
    let refusal = this.presentationChecks.get(key);
    if (refusal === undefined) {
      refusal = presentationRefusal(prepared.record, presentation) ?? null;
      this.presentationChecks.set(key, refusal);
      if (refusal !== null) this.logger.error(`virtual server ${server.tenant}/${server.name}: ${exposure.origin} left out: ${refusal}`);
    }
    if (refusal !== null) return undefined;
    const fixed = presentation.fixedArguments ?? {};
    const record = withScopes(prepared.record, presentation.scopes);
    const stepUpScopes = record.requiredScopes.filter((scope) => scope !== BASELINE_SCOPE);
    const wire: Tool = {
      ...prepared.wire,
      name: exposure.name,
      ...(presentation.title === undefined ? {} : { title: presentation.title }),
      ...(presentation.description === undefined ? {} : { description: presentation.description }),
      inputSchema: presentedInputSchema(prepared.record.inputSchema, presentation) as Tool['inputSchema'],
      ...(stepUpScopes.length ? { _meta: { ...prepared.wire._meta, [REQUIRED_SCOPES_META_KEY]: stepUpScopes } } : {}),
    };
    return {
      ...prepared,
      record,
      wire,
      // A fixed argument is not the client's to send, so neither is its header (S-116).
      paramHeaders: prepared.paramHeaders.filter((declaration) => !Object.hasOwn(fixed, declaration.path[0] ?? '')),
      ...(presentation.fixedArguments === undefined ? {} : { fixedArguments: presentation.fixedArguments }),
      ...(presentation.defaultArguments === undefined ? {} : { defaultArguments: presentation.defaultArguments }),
    };
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
    for (const key of this.presentationChecks.keys()) if (!live.has(key.slice(0, key.indexOf('|')))) this.presentationChecks.delete(key);
  }
}

/** The tool as one server exposes it, needing the pick's scopes too (who sees and calls it, and what its server offers, follow `requiredScopes`). */
function withScopes(record: CatalogTool, scopes: string[] | undefined): CatalogTool {
  const extra = (scopes ?? []).filter((scope) => !record.requiredScopes.includes(scope));
  return extra.length ? { ...record, requiredScopes: [...record.requiredScopes, ...extra] } : record;
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
