import type { Client } from '@modelcontextprotocol/client';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { CatalogService } from '../catalog/catalog.service';
import { DEFAULT_TOOL_TIMEOUT_MS, type JsonObject } from '../catalog/catalog.types';
import { CatalogPublisher } from '../catalog/catalog-publisher';
import type { UpstreamSource } from './upstream.types';
import { UpstreamConnections } from './upstream-connections';
import { definitionDigest, definitionRefusal, exposedName, itemName, pinnedDefinition, UPSTREAM_LIMITS } from './upstream-definitions';
import type { UpstreamItemEntity } from './upstream-item.entity';
import { heldReason, itemKey, UpstreamServedItems } from './upstream-served-items';
import { listUpstreamSkills, skillRefusal, upstreamServesSkills } from './upstream-skills';
import { type SourceToolRow, type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';
import { upstreamDecidesTasks } from './upstream-task-eras';

type ItemKind = toolExecutor.UpstreamItemKind;

/** One item an upstream listed, as read. */
interface ObservedItem {
  kind: ItemKind;
  raw: Record<string, unknown>;
}

/** What one read of an upstream's catalog gave. */
interface ObservedCatalog {
  items: ObservedItem[];
  /** Why the read stopped early (a limit), if it did. */
  cut?: string;
}

type Approval = { kind: ItemKind; item: string; actor: string; digest: string; previousDigest: string | null; approvedAt: Date };

/**
 * Reads upstream catalogs and pins them (issue 15 §5): each item's definition (tools, prompts,
 * resources, resource templates, skills) gets a digest; what an administrator or the source's policy approved
 * is what is served, under the source's prefix: tools by the catalog, the rest by the resource store
 * (`putUpstreamItems`), which refuses what collides with the tenant's own items.
 * A new tool waits (`held-new`) unless the policy approves it; a changed one keeps its approved
 * definition but is held (`held-changed`: neither listed nor callable) until its change is approved;
 * one the upstream stopped listing is held as `removed`. A sync runs when a source is written, when an
 * administrator asks, when the upstream says a list changed (`list_changed`, either era), and in the
 * background ({@link UpstreamResync}, told of each read's outcome: it sets when the next is due).
 */
@Injectable()
export class UpstreamSyncService implements OnApplicationBootstrap {
  private readonly logger = new Logger(UpstreamSyncService.name);
  /** One sync per source at a time; a request during one runs once more after it. */
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();
  /** Told after each read of an enabled source whether the catalog could be read ({@link UpstreamResync} schedules the next). */
  private afterRead: (source: StoredSource, read: boolean) => Promise<void> = async () => undefined;

  constructor(
    private readonly repository: UpstreamSourcesRepository,
    private readonly connections: UpstreamConnections,
    private readonly catalog: CatalogService,
    private readonly publisher: CatalogPublisher,
    private readonly served: UpstreamServedItems,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.connections.listen({
      listChanged: (source) => void this.resync(source).catch((error: unknown) => this.logger.warn(`sync after list_changed failed: ${String(error)}`)),
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

  /** Sets what runs after each read of an enabled source (one listener: the background reads). */
  onRead(listener: (source: StoredSource, read: boolean) => Promise<void>): void {
    this.afterRead = listener;
  }

  /** The approvals an administrator asked for (digest by {@link itemKey}), written with the catalog rows they change. */
  async approve(source: StoredSource, decisions: Map<string, string>, actor: string): Promise<void> {
    const items = await this.repository.itemsOf(source.id);
    const approvals: Approval[] = [];
    const now = new Date(this.clock.now());
    for (const item of items) {
      const digest = decisions.get(itemKey(item.kind, item.name));
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
      observed = await this.connections.use(source, (client) => readCatalog(client));
    } catch (error) {
      this.logger.warn(`upstream ${source.tenant}/${source.name}: catalog not read: ${(error as Error).message}`);
      await this.afterRead(source, false);
      return;
    }
    await this.afterRead(source, true);
    if (observed.cut) this.connections.degraded(source, observed.cut);
    const items = await this.pin(source, observed.items);
    await this.write(source, items.items, items.approvals);
    this.connections.health.synced(source.id);
  }

  /** The items after this observation, and the approvals the policy made. */
  private async pin(source: StoredSource, observed: ObservedItem[]): Promise<{ items: UpstreamItemEntity[]; approvals: Approval[] }> {
    const previous = new Map((await this.repository.itemsOf(source.id)).map((item) => [itemKey(item.kind, item.name), item]));
    const taken = await this.repository.namesTakenOutside(source.tenant, source.id);
    const now = new Date(this.clock.now());
    const actor = `policy:${source.policy}`;
    const approvals: Approval[] = [];
    const items: UpstreamItemEntity[] = [];
    const seen = new Set<string>();
    for (const { kind, raw } of observed) {
      const name = itemName(kind, raw);
      if (typeof name !== 'string' || seen.has(itemKey(kind, name))) continue;
      const key = itemKey(kind, name);
      seen.add(key);
      const definition = pinnedDefinition(raw, kind);
      const digest = definitionDigest(definition);
      const before = previous.get(key);
      const item: UpstreamItemEntity = Object.assign(before ?? blankItem(source.id, kind, name), {
        observed: definition,
        observedDigest: digest,
        reason: null,
      });
      const refusal = this.refusal(source, kind, name, definition, taken);
      if (refusal) {
        Object.assign(item, { status: 'refused', reason: refusal });
      } else if (item.approvedDigest === digest) {
        item.status = 'approved';
      } else if (source.policy === 'approve-all' || (source.policy === 'approve-new' && item.approvedDigest === null)) {
        approvals.push({ kind, item: name, actor, digest, previousDigest: item.approvedDigest, approvedAt: now });
        Object.assign(item, { status: 'approved', approved: definition, approvedDigest: digest, approvedAt: now, approvedBy: actor });
      } else item.status = item.approvedDigest === null ? 'held-new' : 'held-changed';
      items.push(item);
    }
    for (const [key, item] of previous) {
      if (!seen.has(key)) items.push(Object.assign(item, { status: 'removed', reason: null, observed: null, observedDigest: null }));
    }
    return { items, approvals };
  }

  /** Why an observed item cannot be served, or `undefined`. */
  private refusal(source: StoredSource, kind: ItemKind, name: string, definition: JsonObject, taken: Set<string>): string | undefined {
    const tooBig = definitionRefusal(definition);
    if (tooBig) return tooBig;
    if (kind === 'tool') return this.toolRefusal(source, name, definition, taken);
    if (kind === 'skill') return skillRefusal(definition);
    if (kind === 'resource')
      return name.length <= 2048 && URL.canParse(name) ? undefined : `its URI ${JSON.stringify(name.slice(0, 200))} is not a URI of at most 2048 characters`;
    const exposed = exposedName(source.prefix, name, kind);
    return exposed.length <= 256 ? undefined : `its name ${JSON.stringify(exposed.slice(0, 200))} is longer than 256 characters`;
  }

  /** Why an observed tool cannot be served, or `undefined`. */
  private toolRefusal(source: StoredSource, name: string, definition: JsonObject, taken: Set<string>): string | undefined {
    const exposed = exposedName(source.prefix, name);
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(exposed)) return `its name ${JSON.stringify(exposed.slice(0, 200))} is not a valid MCP tool name`;
    if (taken.has(exposed)) return `the tenant already has a tool named ${exposed}: give the source another prefix`;
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

  /**
   * Hands the source's approved prompts, resources, templates and skills to the store (it refuses what collides
   * with the tenant's own items: those become `refused`), stores items and approvals, rewrites the
   * source's catalog rows, and tells every replica and broker when they changed.
   */
  private async write(source: StoredSource, items: UpstreamItemEntity[], approvals: Approval[]): Promise<void> {
    await this.served.hand(source, items);
    const rows: SourceToolRow[] = [];
    for (const item of items) {
      if (item.kind !== 'tool' || item.approved === null) continue;
      rows.push({
        name: exposedName(source.prefix, item.name),
        definition: { ...item.approved, name: exposedName(source.prefix, item.name) },
        config: { source: source.id, sourceName: source.name, tool: item.name },
        timeoutMs: source.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        held: heldReason(source, item),
      });
    }
    const changed = await this.repository.writeSync(source.tenant, source.id, items, approvals, rows);
    for (const approval of approvals) {
      this.logger.log(`upstream ${source.tenant}/${source.name}: ${approval.kind} ${approval.item} approved by ${approval.actor} (${approval.digest})`);
    }
    if (changed) await this.publisher.published(source.tenant);
  }

  /** Deletes a source with its catalog rows (cascade) and its items in the store, and tells everyone. */
  async removed(source: StoredSource): Promise<void> {
    await this.served.hand(source, [], true);
    await this.repository.delete(source.tenant, source.name);
    await this.publisher.published(source.tenant);
  }
}

function blankItem(sourceId: string, kind: ItemKind, name: string): UpstreamItemEntity {
  return {
    sourceId,
    kind,
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

/**
 * Every page of the upstream's tools, and of its prompts, resources, resource templates and skills when
 * it declares them, up to the limits: a hostile upstream cannot make the executor read 100,000 items.
 */
async function readCatalog(client: Client): Promise<ObservedCatalog> {
  const capabilities = client.getServerCapabilities() ?? {};
  const budget = { bytes: UPSTREAM_LIMITS.maxCatalogBytes };
  const items: ObservedItem[] = [];
  const tasksByUpstream = upstreamDecidesTasks(client);
  const lists: Array<[ItemKind, (cursor: string | undefined) => Promise<{ entries: unknown[]; nextCursor?: string | undefined }>]> = [
    [
      'tool',
      async (cursor) => {
        const page = pageOf(await client.listTools(params(cursor), { cacheMode: 'bypass' }), 'tools');
        return tasksByUpstream ? { ...page, entries: page.entries.map(withUpstreamTasks) } : page;
      },
    ],
  ];
  if (capabilities.prompts) lists.push(['prompt', async (cursor) => pageOf(await client.listPrompts(params(cursor)), 'prompts')]);
  if (capabilities.resources) {
    lists.push(['resource', async (cursor) => pageOf(await client.listResources(params(cursor)), 'resources')]);
    lists.push(['resource-template', async (cursor) => pageOf(await client.listResourceTemplates(params(cursor)), 'resourceTemplates')]);
  }
  if (upstreamServesSkills(client)) lists.push(['skill', async (cursor) => pageOf(await listUpstreamSkills(client, cursor), 'skills')]);
  for (const [kind, list] of lists) {
    const cut = await readPages(kind, list, items, budget);
    if (cut) return { items, cut };
  }
  return { items };
}

/** A tool of an upstream that decides on tasks, as the catalog keeps it: it may run as a task (`optional`). */
function withUpstreamTasks(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null || 'execution' in entry) return entry;
  return { ...entry, execution: { taskSupport: 'optional' } };
}

const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });

function pageOf(result: Record<string, unknown>, field: string): { entries: unknown[]; nextCursor?: string | undefined } {
  const entries = Array.isArray(result[field]) ? (result[field] as unknown[]) : [];
  return { entries, ...(typeof result['nextCursor'] === 'string' ? { nextCursor: result['nextCursor'] } : {}) };
}

/** Reads one list's pages into `items`; answers why it stopped early, if it did. */
async function readPages(
  kind: ItemKind,
  list: (cursor: string | undefined) => Promise<{ entries: unknown[]; nextCursor?: string | undefined }>,
  items: ObservedItem[],
  budget: { bytes: number },
): Promise<string | undefined> {
  const plural = `${kind}s`;
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await list(cursor);
    for (const entry of result.entries) {
      if (typeof entry !== 'object' || entry === null) continue;
      budget.bytes -= JSON.stringify(entry).length;
      if (count >= UPSTREAM_LIMITS.maxTools) return `the upstream lists more than ${UPSTREAM_LIMITS.maxTools} ${plural}; the rest were not read`;
      if (budget.bytes < 0) return `the upstream's catalog passes ${UPSTREAM_LIMITS.maxCatalogBytes} bytes; the rest were not read`;
      items.push({ kind, raw: entry as Record<string, unknown> });
      count += 1;
    }
    cursor = result.nextCursor;
    if (!cursor) return undefined;
  }
  return `the upstream gave more than 100 pages of ${plural}; the rest were not read`;
}
