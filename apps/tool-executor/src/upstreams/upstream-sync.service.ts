import type { Client, Tool } from '@modelcontextprotocol/client';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { CatalogService } from '../catalog/catalog.service';
import { DEFAULT_TOOL_TIMEOUT_MS, type JsonObject } from '../catalog/catalog.types';
import { CatalogPublisher } from '../catalog/catalog-publisher';
import type { UpstreamSource } from './upstream.types';
import { UpstreamConnections } from './upstream-connections';
import { definitionDigest, definitionRefusal, exposedName, pinnedDefinition, UPSTREAM_LIMITS } from './upstream-definitions';
import type { UpstreamItemEntity } from './upstream-item.entity';
import { UpstreamSecrets } from './upstream-secrets';
import { type SourceToolRow, type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';

/** Why a once-approved tool is held, as callers read it. */
export const HELD_CHANGED = 'its definition changed upstream and waits for an administrator to approve the change';
export const HELD_REMOVED = 'the upstream server no longer lists it';
export const HELD_DISABLED = 'its upstream server is disabled';

/** What one read of an upstream's catalog gave. */
interface ObservedCatalog {
  tools: Tool[];
  /** Why the read stopped early (a limit), if it did. */
  cut?: string;
}

type Approval = { kind: toolExecutor.UpstreamItemKind; item: string; actor: string; digest: string; previousDigest: string | null; approvedAt: Date };

/**
 * Reads upstream catalogs and pins them (issue 15 §5): each tool's definition gets a digest; what an
 * administrator or the source's policy approved is what the catalog serves, under the source's prefix.
 * A new tool waits (`held-new`) unless the policy approves it; a changed one keeps its approved
 * definition but is held (`held-changed`: neither listed nor callable) until its change is approved;
 * one the upstream stopped listing is held as `removed`. A sync runs when a source is written, when an
 * administrator asks, and when the upstream says its tools changed (`list_changed`, either era).
 */
@Injectable()
export class UpstreamSyncService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UpstreamSyncService.name);
  /** One sync per source at a time; a request during one runs once more after it. */
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(
    private readonly repository: UpstreamSourcesRepository,
    private readonly connections: UpstreamConnections,
    private readonly secrets: UpstreamSecrets,
    private readonly catalog: CatalogService,
    private readonly publisher: CatalogPublisher,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.connections.listen({
      toolsChanged: (source) => void this.resync(source).catch((error: unknown) => this.logger.warn(`sync after list_changed failed: ${String(error)}`)),
    });
  }

  /** Reads the source's catalog now and pins it; a failure to reach it is recorded in its health, not thrown. */
  async sync(source: StoredSource): Promise<void> {
    const entry = this.running.get(source.id);
    if (entry) {
      entry.again = true;
      return entry.done;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await this.syncOnce(source);
        } while (state.again);
      } finally {
        this.running.delete(source.id);
      }
    })();
    this.running.set(source.id, state);
    return state.done;
  }

  /** The approvals an administrator asked for, written with the catalog rows they change. */
  async approve(source: StoredSource, decisions: Map<string, string>, actor: string): Promise<void> {
    const items = await this.repository.itemsOf(source.id);
    const approvals: Approval[] = [];
    const now = new Date(this.clock.now());
    for (const item of items) {
      const digest = decisions.get(item.name);
      if (digest === undefined || item.observed === null || item.observedDigest !== digest) continue;
      if (item.approvedDigest !== digest)
        approvals.push({ kind: item.kind, item: item.name, actor, digest, previousDigest: item.approvedDigest, approvedAt: now });
      Object.assign(item, { status: 'approved', reason: null, approved: item.observed, approvedDigest: digest, approvedAt: now, approvedBy: actor });
    }
    await this.write(source, items, approvals);
  }

  /** The upstream said its tools changed: read the source as stored now (it may have changed or gone) and sync it. */
  private async resync(changed: UpstreamSource): Promise<void> {
    const source = await this.repository.byId(changed.tenant, changed.id);
    if (source) await this.sync(source);
  }

  private async syncOnce(source: StoredSource): Promise<void> {
    if (!source.enabled) {
      await this.write(source, await this.repository.itemsOf(source.id), []);
      return;
    }
    let observed: ObservedCatalog;
    try {
      observed = await this.connections.use(
        source,
        () => this.secrets.open(source.tenant, source.name, source.stored),
        (client) => readTools(client),
      );
    } catch (error) {
      this.logger.warn(`upstream ${source.tenant}/${source.name}: catalog not read: ${(error as Error).message}`);
      return;
    }
    if (observed.cut) this.connections.degraded(source, observed.cut);
    const items = await this.pin(source, observed.tools);
    await this.write(source, items.items, items.approvals);
    this.connections.health.synced(source.id);
  }

  /** The items after this observation, and the approvals the policy made. */
  private async pin(source: StoredSource, tools: Tool[]): Promise<{ items: UpstreamItemEntity[]; approvals: Approval[] }> {
    const previous = new Map((await this.repository.itemsOf(source.id)).map((item) => [item.name, item]));
    const taken = await this.repository.namesTakenOutside(source.tenant, source.id);
    const now = new Date(this.clock.now());
    const actor = `policy:${source.policy}`;
    const approvals: Approval[] = [];
    const items: UpstreamItemEntity[] = [];
    const seen = new Set<string>();
    for (const tool of tools) {
      if (typeof tool.name !== 'string' || seen.has(tool.name)) continue;
      seen.add(tool.name);
      const definition = pinnedDefinition(tool as unknown as JsonObject);
      const digest = definitionDigest(definition);
      const before = previous.get(tool.name);
      const item: UpstreamItemEntity = Object.assign(before ?? blankItem(source.id, tool.name), { observed: definition, observedDigest: digest, reason: null });
      const refusal = this.refusal(source, tool.name, definition, taken);
      if (refusal) {
        Object.assign(item, { status: 'refused', reason: refusal });
      } else if (item.approvedDigest === digest) {
        item.status = 'approved';
      } else if (source.policy === 'approve-all' || (source.policy === 'approve-new' && item.approvedDigest === null)) {
        approvals.push({ kind: 'tool', item: tool.name, actor, digest, previousDigest: item.approvedDigest, approvedAt: now });
        Object.assign(item, { status: 'approved', approved: definition, approvedDigest: digest, approvedAt: now, approvedBy: actor });
      } else item.status = item.approvedDigest === null ? 'held-new' : 'held-changed';
      items.push(item);
    }
    for (const [name, item] of previous) {
      if (!seen.has(name)) items.push(Object.assign(item, { status: 'removed', reason: null, observed: null, observedDigest: null }));
    }
    return { items, approvals };
  }

  /** Why an observed tool cannot be served, or `undefined`. */
  private refusal(source: StoredSource, name: string, definition: JsonObject, taken: Set<string>): string | undefined {
    const exposed = exposedName(source.prefix, name);
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(exposed)) return `its name ${JSON.stringify(exposed.slice(0, 200))} is not a valid MCP tool name`;
    if (taken.has(exposed)) return `the tenant already has a tool named ${exposed}: give the source another prefix`;
    const tooBig = definitionRefusal(definition);
    if (tooBig) return tooBig;
    try {
      this.catalog.assertServable({
        name: exposed,
        inputSchema: (definition['inputSchema'] as JsonObject | undefined) ?? {},
        ...(definition['outputSchema'] ? { outputSchema: definition['outputSchema'] as JsonObject } : {}),
        kind: 'upstream',
        config: { source: source.id, sourceName: source.name, tool: name },
        timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
        enabled: true,
        requiredScopes: [],
        taskSupport: 'forbidden',
      });
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  }

  /** Stores items and approvals, rewrites the source's catalog rows, and tells every replica and broker when they changed. */
  private async write(source: StoredSource, items: UpstreamItemEntity[], approvals: Approval[]): Promise<void> {
    const rows: SourceToolRow[] = [];
    for (const item of items) {
      if (item.approved === null) continue;
      const held = !source.enabled
        ? HELD_DISABLED
        : item.status === 'approved'
          ? null
          : item.status === 'removed'
            ? HELD_REMOVED
            : item.status === 'refused'
              ? item.reason
              : HELD_CHANGED;
      rows.push({
        name: exposedName(source.prefix, item.name),
        definition: { ...item.approved, name: exposedName(source.prefix, item.name) },
        config: { source: source.id, sourceName: source.name, tool: item.name },
        timeoutMs: source.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        held,
      });
    }
    const changed = await this.repository.writeSync(source.tenant, source.id, items, approvals, rows);
    for (const approval of approvals) {
      this.logger.log(`upstream ${source.tenant}/${source.name}: ${approval.item} approved by ${approval.actor} (${approval.digest})`);
    }
    if (changed) await this.publisher.published(source.tenant);
  }

  /** Deletes a source with its catalog rows (cascade) and tells everyone. */
  async removed(source: StoredSource): Promise<void> {
    await this.repository.delete(source.tenant, source.name);
    await this.publisher.published(source.tenant);
  }
}

function blankItem(sourceId: string, name: string): UpstreamItemEntity {
  return {
    sourceId,
    kind: 'tool',
    name,
    status: 'held-new',
    reason: null,
    observed: null,
    observedDigest: null,
    approved: null,
    approvedDigest: null,
    approvedAt: null,
    approvedBy: null,
  };
}

/** Every page of the upstream's tools, up to the limits: a hostile upstream cannot make the executor read 100,000 tools. */
async function readTools(client: Client): Promise<ObservedCatalog> {
  const tools: Tool[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { cacheMode: 'bypass' });
    for (const tool of result.tools) {
      bytes += JSON.stringify(tool).length;
      if (tools.length >= UPSTREAM_LIMITS.maxTools)
        return { tools, cut: `the upstream lists more than ${UPSTREAM_LIMITS.maxTools} tools; the rest were not read` };
      if (bytes > UPSTREAM_LIMITS.maxCatalogBytes)
        return { tools, cut: `the upstream's tools pass ${UPSTREAM_LIMITS.maxCatalogBytes} bytes; the rest were not read` };
      tools.push(tool);
    }
    cursor = result.nextCursor;
    if (!cursor) return { tools };
  }
  return { tools, cut: 'the upstream gave more than 100 pages of tools; the rest were not read' };
}
