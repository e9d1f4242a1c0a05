import { Inject, Injectable, Logger } from '@nestjs/common';
import { sessionBroker } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { ReportThrottle } from '@mcp-platform/shared-observability';
import { type LegacySessionLimits, type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import { callerOf, type NewSession, SessionStore } from './session.store';

/** What {@link SessionAdmission.open} decided. */
export type Admission =
  | { admitted: true; id: string }
  /** `tenant`: the tenant holds its cap of sessions; `platform`: the platform holds its total. */
  | { admitted: false; limit: 'tenant' | 'platform'; max: number };

/**
 * Lets a new legacy session in, or not, by the caps of {@link LegacySessionLimits}, counted from this
 * replica's mirror of the shared bucket (every replica's sessions, as the watch delivers them; replicas
 * admitting at the same instant may overshoot a cap by a few, which the next admission corrects).
 *
 * At the per-caller cap the new session is let in and the caller's least recently used one ends (as
 * a DELETE would, on every replica): refusing instead would lock a client that never sends DELETE out
 * for the session TTL, and the only sessions a caller can end this way are its own (or, for anonymous
 * callers, those of its network, who can equally open sessions of their own). At the tenant's or the
 * platform's cap a new session is refused: ending another caller's session would let one caller push
 * everyone else out. Each cap that bites is logged, once a minute per caller or tenant.
 */
@Injectable()
export class SessionAdmission {
  private readonly logger = new Logger(SessionAdmission.name);
  private readonly limits: LegacySessionLimits;
  private readonly reports = new ReportThrottle();

  constructor(
    private readonly sessions: SessionStore,
    private readonly bus: MessageBus,
    @Inject(SESSION_BROKER_OPTIONS) options: ResolvedSessionBrokerOptions,
  ) {
    this.limits = options.legacySessionLimits;
  }

  /** Creates the session if the caps let it in; at the caller's cap, ends the caller's least recently used ones. */
  async open(fields: NewSession): Promise<Admission> {
    const caller = callerOf(fields);
    const count = this.sessions.count(fields.tenant, caller);
    // A caller at its own cap replaces one of its sessions: the tenant's and the platform's counts stay.
    if (count.caller < this.limits.perCaller) {
      if (count.total >= this.limits.total) return this.refuse('platform', fields.tenant, this.limits.total);
      if (count.tenant >= this.limits.perTenant) return this.refuse('tenant', fields.tenant, this.limits.perTenant);
    }
    const { id } = await this.sessions.create(fields);
    await this.endBeyondCallerCap(caller, id, fields.tenant);
    return { admitted: true, id };
  }

  /** Ends the caller's least recently used sessions (never `kept`) until it holds no more than its cap. */
  private async endBeyondCallerCap(caller: string, kept: string, tenant: string): Promise<void> {
    const others = this.sessions.sessionsOf(caller).filter((use) => use.id !== kept);
    const excess = others.length + 1 - this.limits.perCaller;
    if (excess <= 0) return;
    for (const { id } of others.slice(0, excess)) {
      try {
        await this.sessions.delete(id);
      } catch (error) {
        // The bucket refused: the session lives on until its TTL, and the next admission tries again.
        this.logger.warn(`could not end session ${id.slice(0, 8)}… beyond its caller's cap: ${(error as Error).message}`);
        continue;
      }
      this.bus.emit(sessionBroker.sessionClosed, { sessionId: id, reason: 'evicted' });
    }
    const since = this.reports.note(`caller ${caller}`);
    if (since !== undefined) {
      this.logger.warn(
        `a caller of tenant ${tenant} reached its cap of ${this.limits.perCaller} legacy sessions: its least recently used ones end ` +
          `(${since} time(s) since the last report; caller ${caller.slice(0, 200)})`,
      );
    }
  }

  private refuse(limit: 'tenant' | 'platform', tenant: string, max: number): Admission {
    const since = this.reports.note(limit === 'tenant' ? `tenant ${tenant}` : 'platform');
    if (since !== undefined) {
      this.logger.warn(
        limit === 'tenant'
          ? `tenant ${tenant} holds its cap of ${max} legacy sessions: new ones are refused (${since} since the last report)`
          : `the platform holds its cap of ${max} legacy sessions: new ones are refused (${since} since the last report)`,
      );
    }
    return { admitted: false, limit, max };
  }
}
