import { Injectable, Logger } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { SecretBoxError } from '../credentials/secret-box';
import { stdioServerView } from './stdio-servers';
import { UpstreamConnections } from './upstream-connections';
import { definitionDiff, exposedName } from './upstream-definitions';
import type { UpstreamItemEntity } from './upstream-item.entity';
import { connectionView, UpstreamSecrets, UpstreamWriteRefused } from './upstream-secrets';
import { itemKey } from './upstream-served-items';
import { UpstreamSourceCache } from './upstream-source.cache';
import { type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';
import { UpstreamSyncService } from './upstream-sync.service';

type SourceView = toolExecutor.UpstreamSourceView;
type ItemView = toolExecutor.UpstreamItemView;

/**
 * Upstream sources as their administrators write them (the admin API calls these over the bus). A write
 * seals the secrets, stores the source, drops this replica's connection to its old version, and syncs
 * it (connect, read, pin) before answering, so the answer shows how the upstream fared.
 */
@Injectable()
export class UpstreamAdminService {
  private readonly logger = new Logger(UpstreamAdminService.name);

  constructor(
    private readonly repository: UpstreamSourcesRepository,
    private readonly secrets: UpstreamSecrets,
    private readonly connections: UpstreamConnections,
    private readonly sync: UpstreamSyncService,
    private readonly sourceCache: UpstreamSourceCache,
    private readonly clock: Clock,
  ) {}

  async list(tenant: string): Promise<{ sources: SourceView[] }> {
    await this.requireTenant(tenant);
    const sources = await this.repository.list(tenant);
    return { sources: await Promise.all(sources.map((source) => this.view(source))) };
  }

  async get(tenant: string, name: string): Promise<SourceView> {
    return this.view(await this.require(tenant, name));
  }

  async put(tenant: string, definition: toolExecutor.UpstreamSourceDefinitionRecord): Promise<{ created: boolean; upstream: SourceView }> {
    await this.requireTenant(tenant);
    const previous = await this.repository.get(tenant, definition.name);
    let stored;
    try {
      stored = this.secrets.seal(tenant, definition.name, definition.connection, previous?.stored);
    } catch (error) {
      if (error instanceof UpstreamWriteRefused || error instanceof SecretBoxError) throw new RpcError(WireErrorCode.InvalidParams, error.message);
      throw error;
    }
    const health: toolExecutor.UpstreamHealth = { state: definition.enabled ? 'unknown' : 'disabled', since: new Date(this.clock.now()).toISOString() };
    const created = await this.repository.save(
      tenant,
      {
        name: definition.name,
        ...(definition.title === undefined ? {} : { title: definition.title }),
        prefix: definition.prefix === undefined ? definition.name : definition.prefix,
        policy: definition.policy,
        ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
        enabled: definition.enabled,
        servers: definition.servers,
      },
      stored,
      health,
    );
    const source = await this.require(tenant, definition.name);
    this.logger.log(`upstream ${tenant}/${definition.name} ${created ? 'created' : 'replaced'} (${definition.connection.transport})`);
    await this.forgetConnections(source);
    await this.sync.sync(source);
    return { created, upstream: await this.view(await this.require(tenant, definition.name)) };
  }

  async delete(tenant: string, name: string): Promise<{ deleted: true }> {
    const source = await this.require(tenant, name);
    await this.forgetConnections(source);
    await this.sync.removed(source);
    this.connections.health.forget(source.id);
    this.logger.log(`upstream ${tenant}/${name} deleted with its tools`);
    return { deleted: true };
  }

  async refresh(tenant: string, name: string): Promise<SourceView> {
    await this.sync.sync(await this.require(tenant, name));
    return this.view(await this.require(tenant, name));
  }

  async items(tenant: string, name: string): Promise<{ items: ItemView[] }> {
    const source = await this.require(tenant, name);
    return { items: (await this.repository.itemsOf(source.id)).map((item) => itemView(source, item)) };
  }

  /** Approves what the administrator reviewed; refuses the whole request when an item changed since (`DIGEST_CHANGED`). */
  async approve(
    tenant: string,
    name: string,
    actor: string,
    requested: Array<{ kind: toolExecutor.UpstreamItemKind; name: string; digest: string }>,
  ): Promise<{ items: ItemView[] }> {
    const source = await this.require(tenant, name);
    const items = new Map((await this.repository.itemsOf(source.id)).map((item) => [itemKey(item.kind, item.name), item]));
    for (const { kind, name: itemName, digest } of requested) {
      const item = items.get(itemKey(kind, itemName));
      if (!item) throw new RpcError(WireErrorCode.NotFound, `upstream ${name} lists no ${kind} ${itemName}`);
      if (item.observedDigest !== digest) {
        throw new RpcError(
          WireErrorCode.InvalidParams,
          `${itemName} is now ${item.observedDigest ?? 'no longer listed'}, not the ${digest} that was reviewed: review it again`,
          { code: 'DIGEST_CHANGED', item: itemName, observedDigest: item.observedDigest },
        );
      }
      if (item.status === 'refused') throw new RpcError(WireErrorCode.InvalidParams, `${itemName} cannot be served: ${item.reason ?? 'refused'}`);
    }
    await this.sync.approve(source, new Map(requested.map((item) => [itemKey(item.kind, item.name), item.digest])), actor);
    return this.items(tenant, name);
  }

  async approvals(tenant: string, name: string): Promise<{ approvals: toolExecutor.UpstreamApproval[] }> {
    const source = await this.require(tenant, name);
    const rows = await this.repository.approvalsOf(source.id);
    return {
      approvals: rows.map((row) => ({
        at: row.approvedAt.toISOString(),
        source: name,
        kind: row.kind,
        item: row.item,
        actor: row.actor,
        digest: row.digest,
        ...(row.previousDigest === null ? {} : { previousDigest: row.previousDigest }),
      })),
    };
  }

  async stdioServers(tenant: string): Promise<{ servers: Array<ReturnType<typeof stdioServerView>> }> {
    await this.requireTenant(tenant);
    return { servers: Object.entries(this.secrets.stdioServers).map(([name, entry]) => stdioServerView(name, entry)) };
  }

  private async forgetConnections(source: StoredSource): Promise<void> {
    this.sourceCache.forget(source.id);
    await this.connections.close(source.id);
  }

  private async view(source: StoredSource): Promise<SourceView> {
    const items = await this.repository.itemsOf(source.id);
    const count = (statuses: string[]): number => items.filter((item) => statuses.includes(item.status)).length;
    return {
      name: source.name,
      ...(source.title === undefined ? {} : { title: source.title }),
      connection: connectionView(source.connection),
      prefix: source.prefix,
      policy: source.policy,
      ...(source.timeoutMs === undefined ? {} : { timeoutMs: source.timeoutMs }),
      enabled: source.enabled,
      servers: source.servers,
      health: this.connections.health.current(source.id) ?? source.health,
      items: { approved: count(['approved']), held: count(['held-new', 'held-changed', 'refused']), removed: count(['removed']) },
    };
  }

  private async requireTenant(tenant: string): Promise<void> {
    if (!(await this.repository.tenantId(tenant))) throw new RpcError(WireErrorCode.NotFound, `Unknown tenant ${tenant}`);
  }

  private async require(tenant: string, name: string): Promise<StoredSource> {
    await this.requireTenant(tenant);
    const source = await this.repository.get(tenant, name);
    if (!source) throw new RpcError(WireErrorCode.NotFound, `Unknown upstream ${name} in tenant ${tenant}`);
    return source;
  }
}

function itemView(source: StoredSource, item: UpstreamItemEntity): ItemView {
  return {
    kind: item.kind,
    name: item.name,
    exposedName: exposedName(source.prefix, item.name, item.kind),
    status: item.status,
    ...(item.reason === null ? {} : { reason: item.reason }),
    ...(item.observedDigest === null ? {} : { observedDigest: item.observedDigest }),
    ...(item.approvedDigest === null ? {} : { approvedDigest: item.approvedDigest }),
    ...(item.observed === null ? {} : { observed: item.observed }),
    ...(item.approved === null ? {} : { approved: item.approved }),
    ...(item.approved !== null && item.observed !== null && item.approvedDigest !== item.observedDigest
      ? { diff: definitionDiff(item.approved, item.observed) as ItemView['diff'] }
      : {}),
    ...(item.approvedAt === null ? {} : { approvedAt: item.approvedAt.toISOString() }),
    ...(item.approvedBy === null ? {} : { approvedBy: item.approvedBy }),
  };
}
