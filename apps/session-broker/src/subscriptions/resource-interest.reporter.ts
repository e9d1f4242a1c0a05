import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { sessionBroker } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { SessionStore } from '../sessions/session.store';
import { ListenStreams } from './listen-streams.registry';

type Interest = sessionBroker.ResourceInterest;

/** How long after a change the replica reports it: a burst of subscribes is one report. */
const REPORT_DELAY_MS = 50;

/**
 * Tells the tool executor what this replica's clients subscribe to (`resourceInterestReported`), so it
 * opens upstream subscriptions for upstream resources and closes them when no subscriber remains
 * (issue 15 §4). The subscriptions are the ones the platform already keeps: legacy sessions' in the
 * shared session store (every replica mirrors them all, so each reports them: the executor takes the
 * union, and a session's expiry or end drops them from every mirror) and this replica's own
 * `subscriptions/listen` streams. A change is reported as the difference since the last report; all of
 * it again every `RESOURCE_INTEREST_REFRESH_MS`, which is the liveness: a replica that dies goes silent
 * and what it reported expires at the executor.
 */
@Injectable()
export class ResourceInterestReporter implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ResourceInterestReporter.name);
  /** This process, as the executor tells reporters apart. */
  private readonly holder = randomUUID();
  private reported = new Map<string, Interest>();
  private pending: NodeJS.Timeout | undefined;
  private refresher: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly sessions: SessionStore,
    private readonly listens: ListenStreams,
  ) {}

  onApplicationBootstrap(): void {
    this.sessions.onSubscriptionsChanged(() => this.changed());
    this.listens.onResourceSubscriptionsChanged(() => this.changed());
    this.refresher = setInterval(() => this.report(true), sessionBroker.RESOURCE_INTEREST_REFRESH_MS);
    this.refresher.unref();
  }

  /** Something subscribed or unsubscribed: reported shortly, with whatever else changes meanwhile. */
  changed(): void {
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      this.report(false);
    }, REPORT_DELAY_MS);
  }

  /** An executor asked (it started): everything held, now. */
  reportAll(): void {
    this.report(true);
  }

  /** Shutdown releases everything this replica reported, so the executor need not wait for the expiry. */
  onModuleDestroy(): void {
    clearInterval(this.refresher);
    clearTimeout(this.pending);
    this.send([], [...this.reported.values()]);
    this.reported = new Map();
  }

  /** Reports what changed since the last report (`all`: everything held, and what was released). */
  private report(all: boolean): void {
    const current = new Map<string, Interest>();
    for (const interest of [...this.sessions.subscribedResources(), ...this.listens.subscribedResources()]) {
      current.set(JSON.stringify([interest.tenant, interest.uri]), interest);
    }
    const held = [...current].filter(([key]) => all || !this.reported.has(key)).map(([, interest]) => interest);
    const released = [...this.reported].filter(([key]) => !current.has(key)).map(([, interest]) => interest);
    this.reported = current;
    this.send(held, released);
  }

  private send(held: Interest[], released: Interest[]): void {
    const max = sessionBroker.RESOURCE_INTEREST_REPORT_MAX;
    for (let start = 0; start < held.length || start < released.length; start += max) {
      try {
        this.bus.emit(sessionBroker.resourceInterestReported, {
          holder: this.holder,
          held: held.slice(start, start + max),
          released: released.slice(start, start + max),
        });
      } catch (error) {
        this.logger.warn(`could not report resource subscriptions: ${(error as Error).message}`);
        return;
      }
    }
  }
}
