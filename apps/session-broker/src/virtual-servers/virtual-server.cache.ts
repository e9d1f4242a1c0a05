import { Injectable } from '@nestjs/common';
import { toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { isRpcError, MessageBus } from '@mcp-platform/shared-messaging';

/** A virtual server as the tool executor describes it. */
export type VirtualServer = toolExecutor.VirtualServer;

/** A resolved virtual server, or the reason it could not be resolved. */
export type VirtualServerLookup = { found: true; server: VirtualServer } | { found: false; reason: 'not-found' | 'unavailable' };

interface CacheEntry {
  lookup: Promise<VirtualServerLookup>;
  expiresAt: number;
}

const FOUND_TTL_MS = 5 * 60_000;
// Unknown servers are remembered briefly so a client hammering a wrong URL does not hammer the executor.
const NOT_FOUND_TTL_MS = 5_000;
/**
 * How long a tenant the authorization server disabled or deleted is refused on its word alone: by then
 * every executor replica has its own flag (or has dropped the catalog), which new brokers read too.
 */
const DISABLED_BY_EVENT_MS = 60_000;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Virtual servers by tenant and slug, cached in memory; `catalogChanged` invalidates them.
 * Concurrent misses share one look-up. A tenant the authorization server just disabled or deleted
 * resolves as disabled here at once (`tenantChanged`), whatever an executor replica that has not
 * reloaded yet answers, and nothing fetched meanwhile is kept beyond that.
 */
@Injectable()
export class VirtualServerCache {
  private readonly entries = new Map<string, CacheEntry>();
  /** Tenants disabled or deleted by an event, until when. */
  private readonly disabledUntil = new Map<string, number>();

  constructor(private readonly bus: MessageBus) {}

  resolve(tenant: string, server: string): Promise<VirtualServerLookup> {
    if (!SLUG.test(tenant) || !SLUG.test(server)) return Promise.resolve({ found: false, reason: 'not-found' });
    const lookup = this.cachedOrFetched(tenant, server);
    const disabledUntil = this.disabledUntil.get(tenant);
    if (disabledUntil === undefined) return lookup;
    if (disabledUntil <= Date.now()) {
      this.disabledUntil.delete(tenant);
      return lookup;
    }
    return lookup.then((found) => (found.found ? { found: true, server: { ...found.server, disabled: true } } : found));
  }

  /**
   * The authorization server enabled, disabled or deleted the tenant: forget its servers, and refuse a
   * disabled or deleted one at once for a while (see `DISABLED_BY_EVENT_MS`).
   */
  tenantChanged(tenant: string, state: 'enabled' | 'disabled' | 'deleted'): void {
    if (state === 'enabled') this.disabledUntil.delete(tenant);
    else this.disabledUntil.set(tenant, Date.now() + DISABLED_BY_EVENT_MS);
    this.invalidate(tenant, []);
  }

  private cachedOrFetched(tenant: string, server: string): Promise<VirtualServerLookup> {
    const key = `${tenant}/${server}`;
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.lookup;
    // Fetched while the tenant is refused on an event's word: an executor may not have reloaded yet, so this is not kept beyond it.
    const expiresAt = Math.min(now + FOUND_TTL_MS, this.disabledUntil.get(tenant) ?? Number.POSITIVE_INFINITY);
    const entry: CacheEntry = { lookup: this.fetch(tenant, server), expiresAt };
    this.entries.set(key, entry);
    void entry.lookup.then((lookup) => {
      // A disabled tenant is looked at again soon: once enabled, every replica of the executor says so within seconds.
      if (lookup.found && lookup.server.disabled) entry.expiresAt = Math.min(entry.expiresAt, Date.now() + NOT_FOUND_TTL_MS);
      if (lookup.found) return;
      // Failures are not cached for long: an unavailable executor must not pin a 503.
      if (lookup.reason === 'unavailable') this.entries.delete(key);
      else entry.expiresAt = Date.now() + NOT_FOUND_TTL_MS;
    });
    return entry.lookup;
  }

  /** Forgets the named servers of a tenant (a `catalogChanged` event). */
  invalidate(tenant: string, servers: readonly string[]): void {
    if (servers.length === 0) {
      for (const key of this.entries.keys()) if (key.startsWith(`${tenant}/`)) this.entries.delete(key);
      return;
    }
    for (const server of servers) this.entries.delete(`${tenant}/${server}`);
  }

  private async fetch(tenant: string, server: string): Promise<VirtualServerLookup> {
    try {
      return { found: true, server: await this.bus.request(toolExecutor.getVirtualServer, { tenant, server }, { timeoutMs: 5_000 }) };
    } catch (error) {
      if (isRpcError(error) && (error.code === WireErrorCode.NotFound || error.code === WireErrorCode.InvalidRequest)) {
        return { found: false, reason: 'not-found' };
      }
      return { found: false, reason: 'unavailable' };
    }
  }
}
