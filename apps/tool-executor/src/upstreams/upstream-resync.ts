import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@mcp-platform/shared-clock';
import { type StoredSource, UpstreamSourcesRepository } from './upstream-sources.repository';
import { UpstreamSyncService } from './upstream-sync.service';
import { UPSTREAM_OPTIONS, type UpstreamOptions } from './upstreams.constants';

/** Sources one replica reads per look; the rest wait for the next look (or another replica). */
const CLAIM_LIMIT = 16;
/** How long a claimed source stays out of other replicas' reach while this one reads it (its read then sets the next time). */
const CLAIM_LEASE_MS = 5 * 60_000;

/**
 * Reads upstream catalogs again in the background, so the platform catches up without an
 * administrator: an upstream that was down when its source was written (or failed since) is retried
 * with backoff, and changes an upstream made without `list_changed` (a stdio server stopped while idle,
 * a server that never sends it) are seen within `resyncMs`. Every `resyncCheckMs` each replica claims
 * the sources that are due (one statement, so two replicas never read the same source at once) and
 * syncs them one after the other; a sync records its own failures in the source's health.
 */
@Injectable()
export class UpstreamResync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UpstreamResync.name);
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private stopping = false;

  constructor(
    @Inject(UPSTREAM_OPTIONS) private readonly options: UpstreamOptions,
    private readonly repository: UpstreamSourcesRepository,
    private readonly sync: UpstreamSyncService,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.resyncMs === 0) return;
    this.sync.onRead((source, read) => this.scheduleNext(source, read));
    this.timer = setInterval(() => void this.look(), this.options.resyncCheckMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.looking;
  }

  /**
   * When the source is read again: `resyncMs` after a read; after the n-th failed read in a row,
   * `resyncRetryMs × 2ⁿ⁻¹`, at most `resyncMs`. A failure to write it only delays the next read (the claim's lease ends).
   */
  private async scheduleNext(source: StoredSource, read: boolean): Promise<void> {
    const failures = read ? 0 : source.syncFailures + 1;
    const wait = read ? this.options.resyncMs : Math.min(this.options.resyncMs, this.options.resyncRetryMs * 2 ** Math.min(failures - 1, 20));
    source.syncFailures = failures;
    await this.repository.scheduleSync(source.id, new Date(this.clock.now() + wait), failures).catch((error: unknown) => {
      this.logger.warn(`could not schedule the next read of upstream ${source.tenant}/${source.name}: ${(error as Error).message}`);
    });
  }

  /** One look: claims what is due and syncs it (a look still running when the next is due makes that one wait its turn). */
  look(): Promise<void> {
    this.looking ??= this.claimAndSync().finally(() => (this.looking = undefined));
    return this.looking;
  }

  private async claimAndSync(): Promise<void> {
    let due: Array<{ tenant: string; id: string }>;
    try {
      due = await this.repository.claimDueSyncs(new Date(this.clock.now()), CLAIM_LEASE_MS, CLAIM_LIMIT);
    } catch (error) {
      this.logger.warn(`could not look for upstream sources due to be read: ${(error as Error).message}`);
      return;
    }
    for (const { tenant, id } of due) {
      if (this.stopping) return;
      try {
        const source = await this.repository.byId(tenant, id);
        if (source) await this.sync.sync(source);
      } catch (error) {
        this.logger.warn(`background read of upstream ${tenant}/${id} failed: ${(error as Error).message}`);
      }
    }
  }
}
