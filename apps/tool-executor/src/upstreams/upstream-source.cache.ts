import { Injectable } from '@nestjs/common';
import { Clock } from '@mcp-platform/shared-clock';
import { type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';

/** How long a replica trusts its copy of a source (its URL and secrets) before reading it again. */
const SOURCE_CACHE_MS = 5_000;

/**
 * The sources this replica's calls and reads use, by id, each read again after a few seconds (a write
 * on another replica is seen that late at most; this replica's own writes `forget` at once).
 */
@Injectable()
export class UpstreamSourceCache {
  private readonly sources = new Map<string, { source: StoredSource; readAt: number }>();

  constructor(
    private readonly repository: UpstreamSourcesRepository,
    private readonly clock: Clock,
  ) {}

  /** The tenant's source with that id, or `undefined` (deleted, or another tenant's). */
  async get(tenant: string, id: string): Promise<StoredSource | undefined> {
    const cached = this.sources.get(id);
    if (cached && cached.source.tenant === tenant && this.clock.now() - cached.readAt < SOURCE_CACHE_MS) return cached.source;
    const source = await this.repository.byId(tenant, id);
    if (source) this.sources.set(id, { source, readAt: this.clock.now() });
    else this.sources.delete(id);
    return source;
  }

  /** Forgets a source this replica wrote or deleted, so the next use reads it again. */
  forget(sourceId: string): void {
    this.sources.delete(sourceId);
  }
}
