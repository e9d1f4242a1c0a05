import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { type RevocableToken, RevocationList } from '@mcp-platform/shared-auth';
import { MessageBus } from '@mcp-platform/shared-messaging';

const LOAD_TIMEOUT_MS = 5_000;
/** How often the whole list is read again, in case an `accessRevoked` event was missed (a reconnect). */
const RELOAD_INTERVAL_MS = 60_000;

/**
 * The revoked tenants and subjects this replica refuses tokens of (a user or tenant disabled or
 * deleted, issue 13): loaded from the authorization server before the first token is checked, kept
 * current by `accessRevoked` events, read again every minute. All in memory: no look-up per request.
 */
@Injectable()
export class TokenRevocations implements OnModuleDestroy {
  private readonly logger = new Logger(TokenRevocations.name);
  private readonly list = new RevocationList();
  private loaded: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly bus: MessageBus) {}

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Resolves once the revocations were loaded (callers at once share one load; a failed load is not
   * remembered, so the next request tries again). Until then no token may be accepted.
   */
  ready(): Promise<void> {
    this.loaded ??= this.load().then(
      () => {
        this.timer ??= setInterval(() => void this.reload(), RELOAD_INTERVAL_MS);
        this.timer.unref();
      },
      (error: unknown) => {
        this.loaded = undefined;
        throw error;
      },
    );
    return this.loaded;
  }

  /** A revocation announced by the authorization server. */
  add(revocation: authorizationServer.Revocation): void {
    this.list.add(revocation);
  }

  /** Whether the token's tenant or subject was revoked at or after it was issued. */
  isRevoked(token: RevocableToken): boolean {
    return this.list.isRevoked(token);
  }

  private async load(): Promise<void> {
    const { revocations } = await this.bus.request(authorizationServer.listRevocations, {}, { timeoutMs: LOAD_TIMEOUT_MS });
    for (const revocation of revocations) this.list.add(revocation);
    this.logger.debug(`loaded ${revocations.length} revocation(s)`);
  }

  private async reload(): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      this.logger.warn(`reading the revocations again failed (the events keep them current meanwhile): ${(error as Error).message}`);
    }
  }
}
