import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { OidcRecordsRepository } from './oidc-records.repository';

/** How often expired rows of `oidc_records` are deleted. */
export const OIDC_RECORDS_CLEANUP_INTERVAL_MS = 15 * 60_000;

/**
 * Deletes expired oidc-provider artifacts periodically (reads already ignore them; this keeps the
 * table small). Every replica runs it; concurrent deletes of the same rows are harmless.
 */
@Injectable()
export class OidcRecordsCleaner implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OidcRecordsCleaner.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly records: OidcRecordsRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.clean(), OIDC_RECORDS_CLEANUP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Deletes what has expired; failures are logged, the next run tries again. */
  async clean(): Promise<void> {
    try {
      const deleted = await this.records.deleteExpired();
      if (deleted > 0) this.logger.debug(`deleted ${deleted} expired OAuth record(s)`);
    } catch (error) {
      this.logger.warn(`deleting expired OAuth records failed: ${(error as Error).message}`);
    }
  }
}
