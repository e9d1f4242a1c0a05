import type { sessionBroker } from '@mcp-platform/protocol-contracts';

type Interest = sessionBroker.ResourceInterest;

/**
 * Who subscribes to which resource of which tenant, as the broker replicas report it
 * (`resourceInterestReported`): per URI, each reporting replica with when its report expires. A URI is
 * wanted while one unexpired report holds it; a replica that stops reporting (it died) lets go of its
 * URIs `ttlMs` after its last report.
 */
export class ResourceInterestTable {
  /** `[tenant, uri]` as JSON → holder → expiry (epoch ms). */
  private readonly holders = new Map<string, Map<string, number>>();
  private readonly byTenant = new Map<string, Set<string>>();

  constructor(private readonly ttlMs: number) {}

  /** Takes a report; answers the tenants whose wanted URIs changed. */
  report(holder: string, held: readonly Interest[], released: readonly Interest[], now: number): Set<string> {
    const changed = new Set<string>();
    for (const { tenant, uri } of held) {
      const key = JSON.stringify([tenant, uri]);
      let holders = this.holders.get(key);
      if (!holders) {
        this.holders.set(key, (holders = new Map()));
        let uris = this.byTenant.get(tenant);
        if (!uris) this.byTenant.set(tenant, (uris = new Set()));
        uris.add(uri);
        changed.add(tenant);
      }
      holders.set(holder, now + this.ttlMs);
    }
    for (const { tenant, uri } of released) {
      if (this.release(tenant, uri, holder)) changed.add(tenant);
    }
    return changed;
  }

  /** Forgets reports older than the TTL; answers the tenants whose wanted URIs changed. */
  expire(now: number): Set<string> {
    const changed = new Set<string>();
    for (const [key, holders] of this.holders) {
      const [tenant, uri] = JSON.parse(key) as [string, string];
      for (const [holder, expiresAt] of holders) {
        if (expiresAt <= now && this.release(tenant, uri, holder)) changed.add(tenant);
      }
    }
    return changed;
  }

  /** The URIs of the tenant someone subscribes to. */
  urisOf(tenant: string): ReadonlySet<string> {
    return this.byTenant.get(tenant) ?? new Set();
  }

  has(tenant: string, uri: string): boolean {
    return this.holders.has(JSON.stringify([tenant, uri]));
  }

  tenants(): string[] {
    return [...this.byTenant.keys()];
  }

  /** Drops one holder of a URI; answers whether the URI is no longer wanted at all. */
  private release(tenant: string, uri: string, holder: string): boolean {
    const key = JSON.stringify([tenant, uri]);
    const holders = this.holders.get(key);
    if (!holders?.delete(holder) || holders.size > 0) return false;
    this.holders.delete(key);
    const uris = this.byTenant.get(tenant);
    uris?.delete(uri);
    if (uris?.size === 0) this.byTenant.delete(tenant);
    return true;
  }
}
