import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { type RevocableToken, RevocationList } from '@mcp-platform/shared-auth';
import { Clock } from '@mcp-platform/shared-clock';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { RevocationsRepository } from './revocations.repository';

/** How often revocations beyond the horizon are deleted. */
const CLEANUP_INTERVAL_MS = 60 * 60_000;

/**
 * Revokes the access tokens of a tenant or a subject (a user, or a machine client) issued until now:
 * records the revocation in the database (resource servers starting later load it with
 * `listRevocations`), then announces it (`accessRevoked`) so every running one refuses those tokens
 * at once. Access tokens are JWTs checked locally by the resource servers: this is how they hear that
 * what a token names is gone, without a look-up per request.
 */
@Injectable()
export class AccessRevocations implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AccessRevocations.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repository: RevocationsRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.clean(), CLEANUP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Every token of the tenant (by id, so a tenant created again with the same slug is not affected). */
  revokeTenant(tenantId: string, tenant: string): Promise<void> {
    return this.revoke({ kind: 'tenant', id: tenantId, tenant, revokedAt: this.clock.now() });
  }

  /** Every token whose `sub` is `subject`: a user's id, or a machine client's id. */
  revokeSubject(subject: string): Promise<void> {
    return this.revoke({ kind: 'subject', id: subject, revokedAt: this.clock.now() });
  }

  /**
   * Whether the token's subject or tenant was revoked at or after it was issued, by the same rule the
   * brokers apply (`RevocationList`). The admin API asks on every request (it reads the caller's rights
   * from the database anyway): a user or tenant disabled and enabled again has its older tokens refused
   * here too, not only on the MCP servers.
   */
  async isRevoked(token: RevocableToken): Promise<boolean> {
    const list = new RevocationList(() => this.clock.now());
    for (const revocation of await this.repository.findFor(token.subject, token.tenantId)) list.add(revocation);
    return list.isRevoked(token);
  }

  /** The revocations within the horizon (tokens they refuse may still be unexpired). */
  async list(): Promise<authorizationServer.Revocation[]> {
    return this.repository.listSince(new Date(this.clock.now() - authorizationServer.REVOCATION_HORIZON_MS));
  }

  private async revoke(revocation: authorizationServer.Revocation): Promise<void> {
    await this.repository.record(revocation);
    this.bus.emit(authorizationServer.accessRevoked, revocation);
    this.logger.log(`revoked the access tokens of ${revocation.kind} ${revocation.tenant ?? revocation.id} issued until now`);
  }

  private async clean(): Promise<void> {
    try {
      await this.repository.deleteBefore(new Date(this.clock.now() - authorizationServer.REVOCATION_HORIZON_MS));
    } catch (error) {
      this.logger.warn(`deleting old revocations failed: ${(error as Error).message}`);
    }
  }
}
