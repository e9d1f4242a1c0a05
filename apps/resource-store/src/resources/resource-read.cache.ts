import type { ReadResourceResult } from '@mcp-platform/protocol-mcp';
import type { ServedTemplate } from './resource-templates.repository';

/** What a read of one URI on one server found among the stored resources. */
export type CachedRead =
  /** A stored resource small enough to keep, as `read` serves it (without the caching hints). */
  | { kind: 'content'; content: ReadResourceResult['contents'][number] }
  /** No stored resource at this URI on this server: the server's templates decide. */
  | { kind: 'absent' };

/** The bounds of a `ResourceReadCache`. */
export interface ReadCacheLimits {
  /** Most entries kept; 0 disables the cache (nothing is kept, every read queries). */
  maxEntries: number;
  /** Most bytes kept, as estimated by the JSON length of the entries. */
  maxBytes: number;
  /** An entry larger than this is not kept at all. */
  maxEntryBytes: number;
  /** How long an entry may be served, counted from the moment the read that filled it began. */
  ttlMs: number;
}

/**
 * Taken before a read queries the database: which invalidations the read has seen, and when it began.
 * An answer is kept only if no invalidation of its tenant happened since.
 */
export interface ReadTicket {
  readonly tenant: string;
  readonly generation: number;
  readonly startedAt: number;
}

interface Entry {
  tenant: string;
  value: unknown;
  bytes: number;
  expiresAt: number;
}

/**
 * This replica's memory of small `resources/read` answers (by tenant, server and URI) and of each
 * server's template list, so a repeated read does not query PostgreSQL. Least recently used entries
 * go first once a bound is reached.
 *
 * Freshness: every write on this replica drops its tenant's entries before it answers, and the store's
 * own change events (`resourceUpdated`, `listChanged`, delivered to every replica) drop them on the
 * others. Each drop bumps the tenant's generation; a read that began before a drop does not keep what
 * it read (it may have read the old rows). Core NATS may lose an event: `ttlMs` bounds how long a
 * replica that missed one can serve the old answer.
 */
export class ResourceReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByTenant = new Map<string, Set<string>>();
  // Never deleted: a generation that restarted at 0 could match a ticket taken before the drop.
  private readonly generations = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly limits: ReadCacheLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether anything is ever kept. */
  get enabled(): boolean {
    return this.limits.maxEntries > 0;
  }

  /** How much is kept now (entries and estimated bytes). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Takes a ticket for a read of `tenant` that is about to query. */
  begin(tenant: string): ReadTicket {
    return { tenant, generation: this.generations.get(tenant) ?? 0, startedAt: this.now() };
  }

  /** What a read of `uri` on `server` found, if kept and fresh. */
  getRead(tenant: string, server: string, uri: string): CachedRead | undefined {
    return this.get(readKey(tenant, server, uri)) as CachedRead | undefined;
  }

  /** Keeps what a read found, unless the tenant's entries were dropped since the ticket was taken. */
  putRead(ticket: ReadTicket, server: string, uri: string, read: CachedRead): void {
    this.put(ticket, readKey(ticket.tenant, server, uri), read);
  }

  /** The server's templates (every one, by name), if kept and fresh. */
  getTemplates(tenant: string, server: string): ServedTemplate[] | undefined {
    return this.get(templatesKey(tenant, server)) as ServedTemplate[] | undefined;
  }

  /** Keeps the server's templates, unless the tenant's entries were dropped since the ticket was taken. */
  putTemplates(ticket: ReadTicket, server: string, templates: ServedTemplate[]): void {
    this.put(ticket, templatesKey(ticket.tenant, server), templates);
  }

  /** Drops every entry of the tenant and makes the reads in flight for it keep nothing. */
  invalidateTenant(tenant: string): void {
    this.generations.set(tenant, (this.generations.get(tenant) ?? 0) + 1);
    const keys = this.keysByTenant.get(tenant);
    if (!keys) return;
    for (const key of [...keys]) this.remove(key);
  }

  private get(key: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(key);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  private put(ticket: ReadTicket, key: string, value: unknown): void {
    if (!this.enabled) return;
    if ((this.generations.get(ticket.tenant) ?? 0) !== ticket.generation) return;
    const expiresAt = ticket.startedAt + this.limits.ttlMs;
    if (expiresAt <= this.now()) return;
    const bytes = key.length + JSON.stringify(value).length;
    if (bytes > this.limits.maxEntryBytes || bytes > this.limits.maxBytes) return;
    this.remove(key);
    this.entries.set(key, { tenant: ticket.tenant, value, bytes, expiresAt });
    this.bytes += bytes;
    const keys = this.keysByTenant.get(ticket.tenant) ?? new Set<string>();
    keys.add(key);
    this.keysByTenant.set(ticket.tenant, keys);
    this.evict();
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) return;
      this.remove(key);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    const keys = this.keysByTenant.get(entry.tenant);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByTenant.delete(entry.tenant);
  }
}

// JSON arrays: no tenant, server or URI can make two keys collide.
function readKey(tenant: string, server: string, uri: string): string {
  return JSON.stringify(['read', tenant, server, uri]);
}

function templatesKey(tenant: string, server: string): string {
  return JSON.stringify(['templates', tenant, server]);
}
