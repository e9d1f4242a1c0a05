import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type EventPayload, resourceStore, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { ReportThrottle } from '@mcp-platform/shared-observability';
import { ResourceInterestTable } from './resource-interest.table';
import { UpdateCoalescer } from './update-coalescer';
import type { UpstreamSource } from './upstream.types';
import { labelOf, UpstreamConnections } from './upstream-connections';
import { heldReason } from './upstream-served-items';
import { skillFileUris } from './upstream-skills';
import { type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';

/** How often subscriptions are checked: expired reports dropped, lost connections and listen streams opened again, legacy sessions probed. */
export const SUBSCRIPTION_CHECK_MS = 5_000;

/** The most URIs the platform subscribes to on one source: past it, the rest get no updates (logged). */
export const MAX_UPSTREAM_SUBSCRIPTIONS_PER_SOURCE = 1_000;

/** What is subscribed on one source's connection on this replica. */
interface SourceSubscriptions {
  tenant: string;
  /** The connection the subscriptions live on: another one (reconnected) has none of them. */
  client?: Client;
  /** The URIs subscribed upstream (`resources/subscribe`, or the modern listen stream's filter). */
  subscribed: Set<string>;
  /** A modern upstream's `subscriptions/listen` stream carrying them. */
  listen?: McpSubscription;
}

/**
 * `resources/updated` of upstream resources through upstream subscriptions (issue 15 §4). The broker
 * replicas report what their clients subscribe to (`resourceInterestReported`, both eras); for a URI
 * that is one of an upstream source's approved resources, this replica subscribes on its connection to
 * the source (legacy `resources/subscribe`, or a modern `subscriptions/listen` with the URIs), and
 * unsubscribes when no report holds it any more (last unsubscribe, session end, listen stream closed, or
 * a broker replica silent for `RESOURCE_INTEREST_TTL_MS`). An upstream that does not declare
 * `resources.subscribe` is not asked. A new connection (re-initialised legacy session, restarted
 * upstream or executor) gets its subscriptions again, and a check every {@link SUBSCRIPTION_CHECK_MS}
 * catches a lost one. The upstream's `notifications/resources/updated` becomes `upstreamResourceUpdated`
 * only for a URI subscribed on that source (anything else is dropped), at most one per URI each
 * `UPSTREAM_UPDATE_MIN_INTERVAL_MS` (a flood is coalesced).
 */
@Injectable()
export class UpstreamSubscriptions implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UpstreamSubscriptions.name);
  private readonly interest = new ResourceInterestTable(sessionBroker.RESOURCE_INTEREST_TTL_MS);
  private readonly sources = new Map<string, SourceSubscriptions>();
  private readonly coalescer: UpdateCoalescer;
  private readonly dropped = new ReportThrottle();
  /** Per tenant: a reconcile waiting to run, and the one running (they run one after the other). */
  private readonly scheduled = new Map<string, { probe: boolean }>();
  private readonly running = new Map<string, Promise<void>>();
  private checker: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly repository: UpstreamSourcesRepository,
    private readonly connections: UpstreamConnections,
    private readonly clock: Clock,
  ) {
    this.coalescer = new UpdateCoalescer(clock, toolExecutor.UPSTREAM_UPDATE_MIN_INTERVAL_MS);
  }

  onApplicationBootstrap(): void {
    this.connections.listen({
      resourceUpdated: (source, uri) => this.upstreamUpdated(source, uri),
      connected: (source) => {
        if (this.sources.has(source.id) || this.interest.urisOf(source.tenant).size > 0) this.schedule(source.tenant);
      },
    });
    this.checker = setInterval(() => this.check(), SUBSCRIPTION_CHECK_MS);
    this.checker.unref();
    // Restarted: the brokers say at once what their clients hold, rather than at their next refresh.
    this.bus.emit(toolExecutor.resourceInterestRequested, {});
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.checker);
    await Promise.allSettled([...this.sources.values()].map((state) => state.listen?.close() ?? Promise.resolve()));
  }

  /** A broker replica's report of what its clients subscribe to. */
  reported(report: EventPayload<typeof sessionBroker.resourceInterestReported>): void {
    for (const tenant of this.interest.report(report.holder, report.held, report.released, this.clock.now())) this.schedule(tenant);
  }

  /** Waits until every reconcile scheduled or running now has finished (tests). */
  async settled(): Promise<void> {
    while (this.scheduled.size > 0 || this.running.size > 0) await Promise.allSettled([...this.running.values(), this.clock.sleep(10)]);
  }

  /** The upstream's `notifications/resources/updated`: passed on only when subscribed there, coalesced per URI. */
  private upstreamUpdated(source: UpstreamSource, uri: string): void {
    const state = this.sources.get(source.id);
    if (!state?.subscribed.has(uri)) {
      const since = this.dropped.note(source.id);
      if (since !== undefined) this.logger.warn(`upstream ${labelOf(source)}: dropped ${since} resources/updated for URIs nobody subscribed to there`);
      return;
    }
    const { tenant } = source;
    this.coalescer.changed(JSON.stringify([tenant, uri]), () => {
      if (this.interest.has(tenant, uri)) this.bus.emit(toolExecutor.upstreamResourceUpdated, { tenant, uri });
    });
  }

  private check(): void {
    for (const tenant of this.interest.expire(this.clock.now())) this.schedule(tenant);
    const tenants = new Set([...this.interest.tenants(), ...[...this.sources.values()].map((state) => state.tenant)]);
    for (const tenant of tenants) this.schedule(tenant, true);
  }

  /** Runs a reconcile of the tenant soon (`probe`: also make sure each legacy session is still there). */
  private schedule(tenant: string, probe = false): void {
    const waiting = this.scheduled.get(tenant);
    if (waiting) {
      waiting.probe ||= probe;
      return;
    }
    const next = { probe };
    this.scheduled.set(tenant, next);
    const previous = this.running.get(tenant) ?? Promise.resolve();
    const run = previous
      .then(() => {
        this.scheduled.delete(tenant);
        return this.reconcile(tenant, next.probe);
      })
      .catch((error: unknown) => this.logger.warn(`upstream subscriptions of ${tenant}: ${(error as Error).message}`))
      .finally(() => {
        if (this.running.get(tenant) === run) this.running.delete(tenant);
      });
    this.running.set(tenant, run);
  }

  /** Brings every source of the tenant to subscribe to exactly the wanted URIs among its served resources. */
  private async reconcile(tenant: string, probe: boolean): Promise<void> {
    const wanted = this.interest.urisOf(tenant);
    const sources = wanted.size > 0 ? (await this.repository.list(tenant)).filter((source) => source.enabled) : [];
    const seen = new Set<string>();
    for (const source of sources) {
      const desired = await this.servedAmong(source, wanted);
      if (desired.size === 0 && !this.sources.has(source.id)) continue;
      seen.add(source.id);
      await this.apply(source, desired, probe);
    }
    // Sources gone, disabled, or no longer wanted at all: their streams end; their legacy sessions keep
    // the subscriptions until the connection closes, as nothing would be told anyway.
    for (const [sourceId, state] of this.sources) {
      if (state.tenant !== tenant || seen.has(sourceId)) continue;
      const source = sources.find((candidate) => candidate.id === sourceId) ?? (await this.repository.byId(tenant, sourceId));
      if (source?.enabled) await this.apply(source, new Set(), false);
      else {
        await state.listen?.close().catch(() => undefined);
        this.sources.delete(sourceId);
      }
    }
  }

  /**
   * The wanted URIs the source serves (at most the cap): its approved resources and skills' files, and
   * URIs its approved templates match (a read of them would go to it too).
   */
  private async servedAmong(source: StoredSource, wanted: ReadonlySet<string>): Promise<Set<string>> {
    const listed = new Set<string>();
    const templates: resourceStore.UriTemplate[] = [];
    for (const item of await this.repository.itemsOf(source.id)) {
      if (item.approved === null || heldReason(source, item) !== null) continue;
      if (item.kind === 'resource') listed.add(item.name);
      else if (item.kind === 'resource-template') templates.push(...parsedTemplate(item.approved['uriTemplate']));
      else if (item.kind === 'skill') for (const uri of skillFileUris(item.approved)) listed.add(uri);
    }
    const desired = new Set<string>();
    for (const uri of wanted) {
      if (!listed.has(uri) && !templates.some((template) => resourceStore.matchUriTemplate(template, uri) !== undefined)) continue;
      if (desired.size >= MAX_UPSTREAM_SUBSCRIPTIONS_PER_SOURCE) {
        this.logger.warn(
          `upstream ${labelOf(source)}: more than ${MAX_UPSTREAM_SUBSCRIPTIONS_PER_SOURCE} of its resources are subscribed; the rest get no updates`,
        );
        break;
      }
      desired.add(uri);
    }
    return desired;
  }

  private async apply(source: StoredSource, desired: ReadonlySet<string>, probe: boolean): Promise<void> {
    const state = this.sources.get(source.id) ?? { tenant: source.tenant, subscribed: new Set<string>() };
    this.sources.set(source.id, state);
    try {
      await this.connections.use(source, (client) => this.subscribeOn(source, client, state, desired, probe));
    } catch (error) {
      this.logger.warn(`upstream ${labelOf(source)}: its resource subscriptions could not be updated: ${(error as Error).message}`);
    }
    if (desired.size === 0 && state.subscribed.size === 0) this.sources.delete(source.id);
  }

  /** Subscribes and unsubscribes on `client` until it holds `desired` (a new client holds nothing yet). */
  private async subscribeOn(source: StoredSource, client: Client, state: SourceSubscriptions, desired: ReadonlySet<string>, probe: boolean): Promise<void> {
    if (state.client !== client) {
      await state.listen?.close().catch(() => undefined);
      Object.assign(state, { client, subscribed: new Set<string>(), listen: undefined });
    }
    // spec: a server that does not declare `resources.subscribe` is not sent `resources/subscribe`.
    if (!client.getServerCapabilities()?.resources?.subscribe) return;
    if (client.getProtocolEra() === 'modern') return this.listenOn(source, client, state, desired);
    for (const uri of desired) {
      if (state.subscribed.has(uri)) continue;
      await client.subscribeResource({ uri });
      state.subscribed.add(uri);
    }
    for (const uri of [...state.subscribed]) {
      if (desired.has(uri)) continue;
      state.subscribed.delete(uri);
      await client.unsubscribeResource({ uri });
    }
    // A legacy upstream that lost the session answers 404: `use` initializes a new one and runs this again on it.
    if (probe && state.subscribed.size > 0) await client.ping();
  }

  /** A modern upstream: one `subscriptions/listen` stream with the URIs, opened again when they change or it ends. */
  private async listenOn(source: StoredSource, client: Client, state: SourceSubscriptions, desired: ReadonlySet<string>): Promise<void> {
    const same = state.listen !== undefined && state.subscribed.size === desired.size && [...desired].every((uri) => state.subscribed.has(uri));
    if (same) return;
    const previous = state.listen;
    state.listen = undefined;
    state.subscribed = new Set();
    await previous?.close().catch(() => undefined);
    if (desired.size === 0) return;
    const listen = await client.listen({ resourceSubscriptions: [...desired] });
    state.listen = listen;
    state.subscribed = new Set(desired);
    void listen.closed.then((how) => {
      if (state.listen !== listen) return;
      state.listen = undefined;
      state.subscribed = new Set();
      if (how !== 'local') this.schedule(source.tenant);
    });
  }
}

/** A pinned template's URI template, parsed; none when it is not one the store could serve either. */
function parsedTemplate(uriTemplate: unknown): resourceStore.UriTemplate[] {
  if (typeof uriTemplate !== 'string') return [];
  try {
    return [resourceStore.parseUriTemplate(uriTemplate)];
  } catch {
    return [];
  }
}
