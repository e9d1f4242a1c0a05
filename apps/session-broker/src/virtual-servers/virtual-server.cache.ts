import { Injectable } from '@nestjs/common';
import { toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { isRpcError, MessageBus } from '@mcp-platform/shared-messaging';

/** A virtual server as the tool executor describes it. */
export type VirtualServer = toolExecutor.VirtualServer;

/** A resolved virtual server, or the reason it could not be resolved. */
export type VirtualServerLookup =
  | { found: true; server: VirtualServer }
  | { found: false; reason: 'not-found' | 'unavailable' };

interface CacheEntry {
  lookup: Promise<VirtualServerLookup>;
  expiresAt: number;
}

const FOUND_TTL_MS = 5 * 60_000;
// Unknown servers are remembered briefly so a client hammering a wrong URL does not hammer the executor.
const NOT_FOUND_TTL_MS = 5_000;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Virtual servers by tenant and slug, cached in memory; `catalogChanged` invalidates them.
 * Concurrent misses share one look-up.
 */
@Injectable()
export class VirtualServerCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly bus: MessageBus) {}

  resolve(tenant: string, server: string): Promise<VirtualServerLookup> {
    if (!SLUG.test(tenant) || !SLUG.test(server)) return Promise.resolve({ found: false, reason: 'not-found' });
    const key = `${tenant}/${server}`;
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.lookup;
    const entry: CacheEntry = { lookup: this.fetch(tenant, server), expiresAt: now + FOUND_TTL_MS };
    this.entries.set(key, entry);
    void entry.lookup.then((lookup) => {
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
