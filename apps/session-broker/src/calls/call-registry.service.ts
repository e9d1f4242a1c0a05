import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { sessionBroker, type EventPayload } from '@mcp-platform/protocol-contracts';
import { MessageBus, type BusSubscription } from '@mcp-platform/shared-messaging';
import { isLevelAtLeast, JSONRPC_VERSION, type LoggingLevel } from '@mcp-platform/protocol-mcp';
import type { LazyResponse } from '../streams/lazy-response';
import { SESSION_BROKER_OPTIONS, type ResolvedSessionBrokerOptions } from '../session-broker.options';

/** A progress token exactly as the client sent it: a string or an integer (S-264). */
export type ProgressToken = string | number;

/** A call in flight on this replica, waiting for its result and receiving its notifications. */
export interface OpenCall {
  response: LazyResponse;
  /** Echoed verbatim on every `notifications/progress` (S-264); absent: no progress goes out. */
  progressToken?: ProgressToken;
  /** Minimum level of `notifications/message` for this call; absent: none (S-34, S-233). */
  logLevel?: LoggingLevel;
  /** The legacy session the call belongs to. */
  sessionId?: string;
}

interface CallState extends OpenCall {
  lastProgress: number;
}

type Notified = EventPayload<typeof sessionBroker.callNotified>;
type InputRequested = EventPayload<typeof sessionBroker.callInputRequested>;
type ElicitationCompleted = EventPayload<typeof sessionBroker.callElicitationCompleted>;

/**
 * The calls this replica holds, by platform-wide call id. One subscription to `callNotified` on this
 * replica's route (never one per request) dispatches each notification to its call's stream, adding
 * what the executor does not know: the client's progress token (§3.1.4).
 */
@Injectable()
export class CallRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CallRegistry.name);
  private readonly calls = new Map<string, CallState>();
  private readonly subscriptions: BusSubscription[] = [];

  constructor(
    private readonly bus: MessageBus,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  onModuleInit(): void {
    const route = { route: this.options.replicaId };
    this.subscriptions.push(
      this.bus.subscribe(sessionBroker.callNotified, (payload) => this.deliver(payload), route),
      this.bus.subscribe(sessionBroker.callInputRequested, (payload) => this.ask(payload), route),
      this.bus.subscribe(sessionBroker.callElicitationCompleted, (payload) => this.completeElicitation(payload), route),
    );
  }

  onModuleDestroy(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }

  /** The route token services send this replica's call notifications to. */
  get route(): string {
    return this.options.replicaId;
  }

  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  open(callId: string, call: OpenCall): void {
    this.calls.set(callId, { ...call, lastProgress: Number.NEGATIVE_INFINITY });
  }

  close(callId: string): void {
    this.calls.delete(callId);
  }

  /** Ends the streams of a session's calls (the session ended) and returns their ids. */
  closeSession(sessionId: string): string[] {
    const ended: string[] = [];
    for (const [callId, call] of this.calls) {
      if (call.sessionId !== sessionId) continue;
      call.response.close();
      this.calls.delete(callId);
      ended.push(callId);
    }
    return ended;
  }

  /**
   * Sends a call's request to its client (sampling, elicitation, roots) on the call's stream, where the
   * client expects what belongs to the call (§3.2.3). A call whose stream is gone (the client
   * disconnected, which does not cancel it, S-85) asks on its session's GET stream, on whichever
   * replica holds it. The answer comes back as a POST to any replica.
   */
  ask(payload: InputRequested): void {
    const call = this.calls.get(payload.callId);
    if (!call) return;
    const request = { jsonrpc: JSONRPC_VERSION, id: payload.inputId, method: payload.method, ...(payload.params === undefined ? {} : { params: payload.params }) };
    if (call.response.notify(request)) return;
    if (call.sessionId !== undefined) this.bus.emit(sessionBroker.sessionMessage, { sessionId: call.sessionId, message: request });
  }

  /**
   * Tells the client a URL-mode elicitation of one of its calls finished out of band (legacy era,
   * S-327): `notifications/elicitation/complete` on the call's stream, where the elicitation went, or,
   * when that stream is gone (or the call has answered already), on the session's GET stream, on
   * whichever replica holds it. Only the session that got the elicitation hears it.
   */
  completeElicitation(payload: ElicitationCompleted): void {
    const notification = { jsonrpc: JSONRPC_VERSION, method: 'notifications/elicitation/complete', params: { elicitationId: payload.elicitationId } };
    const call = this.calls.get(payload.callId);
    if (call?.sessionId === payload.sessionId && call.response.notify(notification)) return;
    this.bus.emit(sessionBroker.sessionMessage, { sessionId: payload.sessionId, message: notification });
  }

  /** Sends one executor notification to its call's stream (exported for tests). */
  deliver(payload: Notified): void {
    const call = this.calls.get(payload.callId);
    if (!call || !call.response.open) return;
    const notification = payload.notification;
    if (notification.method === 'notifications/progress') {
      if (call.progressToken === undefined) return;
      // spec S-266: progress strictly increases; a service that repeats itself is dropped, not forwarded.
      if (!(notification.params.progress > call.lastProgress)) {
        this.logger.debug(`dropped non-increasing progress for call ${payload.callId}`);
        return;
      }
      call.lastProgress = notification.params.progress;
      call.response.notify({
        jsonrpc: JSONRPC_VERSION,
        method: 'notifications/progress',
        params: { progressToken: call.progressToken, ...notification.params },
      });
      return;
    }
    if (call.logLevel === undefined || !isLevelAtLeast(notification.params.level, call.logLevel)) return;
    call.response.notify({ jsonrpc: JSONRPC_VERSION, method: 'notifications/message', params: notification.params });
  }
}
