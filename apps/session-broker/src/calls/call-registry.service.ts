import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type EventPayload, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import type { RequestId } from '@mcp-platform/protocol-mcp';
import { type BusSubscription, MessageBus } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import type { LazyResponse } from '../streams/lazy-response';
import { eventId } from '../streams/stream-ids';
import { SHUTDOWN_RETRY_AFTER, shutdownError } from './shutdown-answers';

/** A progress token exactly as the client sent it: a string or an integer (S-264). */
export type ProgressToken = string | number;

/** A call in flight on this replica, waiting for its result and receiving its messages. */
export interface OpenCall {
  response: LazyResponse;
  /** The client's JSON-RPC id of the `tools/call`: what an answer the broker makes up itself (at shutdown) carries. */
  requestId: RequestId;
  /** The legacy session the call belongs to. */
  sessionId?: string;
  /** The key of the call's stream log (legacy): a message's SSE id is `<streamKey>:<position>`. */
  streamKey?: string;
  /** The executor running the call stopped saying so (it died): the call will never be answered. */
  lost?: () => void;
}

/** How long a call may go without a heartbeat or a message before its executor counts as gone. */
const LOST_AFTER_MS = sessionBroker.CALL_HEARTBEAT_MS * sessionBroker.CALL_HEARTBEATS_MISSED;

type CallMessage = EventPayload<typeof sessionBroker.callMessage>;

/**
 * The calls this replica holds, by platform-wide call id. One subscription to `callMessage` on this
 * replica's route (never one per request) writes each message of a call on its stream, with its event
 * id when the call's stream is logged (§3.1.4). The executor has already shaped and filtered the
 * messages (progress token, log level, S-264..S-267).
 */
@Injectable()
export class CallRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CallRegistry.name);
  private readonly calls = new Map<string, OpenCall>();
  /** When each call was last heard of: opened, a message, or a heartbeat of its executor (`callsAlive`). */
  private readonly heardAt = new Map<string, number>();
  private readonly subscriptions: BusSubscription[] = [];
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: MessageBus,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  onModuleInit(): void {
    const route = { route: this.options.replicaId };
    this.subscriptions.push(
      this.bus.subscribe(sessionBroker.callMessage, (payload) => this.deliver(payload), route),
      this.bus.subscribe(sessionBroker.callDisconnectRequested, (payload) => this.calls.get(payload.callId)?.response.disconnect(), route),
      this.bus.subscribe(sessionBroker.callsAlive, (payload) => this.heard(payload.callIds), route),
    );
    this.sweeper = setInterval(() => this.giveUpSilent(Date.now()), sessionBroker.CALL_HEARTBEAT_MS);
    this.sweeper.unref();
  }

  /**
   * At shutdown the calls' connections close without ending their streams (S-81): their clients
   * reconnect with `Last-Event-ID` to another replica and read the rest from the log (a rolling restart
   * loses nothing); the calls themselves go on in the executor.
   */
  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    for (const call of this.calls.values()) call.response.disconnect();
  }

  /**
   * At shutdown, where other replicas can take over: closes the connection of every call whose client
   * holds an event id of its stream, with `retry` (S-81); the client resumes on another replica with
   * `Last-Event-ID` and reads the rest, the result included, from the log the executor keeps writing
   * (S-90). A call not resumable yet (no event id sent) stays: it answers here, or gets its priming event
   * at the priming delay and goes at the next look.
   */
  handOffResumable(): number {
    let handed = 0;
    for (const call of this.calls.values()) {
      if (!call.response.open || !call.response.resumable) continue;
      call.response.disconnect();
      handed += 1;
    }
    return handed;
  }

  /**
   * At the end of the shutdown grace: every call still open ends so its client is told, never left to
   * time out. With `handOff`, a resumable one closes with `retry` as above; any other gets a JSON-RPC error
   * (HTTP 503 with `Retry-After` while still plain JSON, the last event of its stream otherwise), and the
   * executor is told to stop it, since nobody will read its result. Returns how many ended.
   */
  endOpen(handOff: boolean): number {
    let ended = 0;
    for (const [callId, call] of this.calls) {
      if (!call.response.open) continue;
      ended += 1;
      if (handOff && call.response.resumable) {
        call.response.disconnect();
        continue;
      }
      call.response.respond(shutdownError(call.requestId), 503, { 'retry-after': SHUTDOWN_RETRY_AFTER });
      this.bus.emit(toolExecutor.callCancelled, { callId, reason: 'the server shut down before the call finished' });
    }
    return ended;
  }

  /** The route token services send this replica's call messages to. */
  get route(): string {
    return this.options.replicaId;
  }

  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  open(callId: string, call: OpenCall): void {
    this.calls.set(callId, call);
    this.heardAt.set(callId, Date.now());
  }

  close(callId: string): void {
    this.calls.delete(callId);
    this.heardAt.delete(callId);
  }

  /**
   * Gives up the calls not heard of for {@link LOST_AFTER_MS} as of `now` (exported for tests): their
   * executor died without answering (a stopping one answers `UNAVAILABLE` itself), so each call's
   * `lost` tells its client, and the call is forgotten here.
   */
  giveUpSilent(now: number): string[] {
    const lost: string[] = [];
    for (const [callId, heardAt] of this.heardAt) {
      if (now - heardAt < LOST_AFTER_MS) continue;
      this.heardAt.delete(callId);
      const call = this.calls.get(callId);
      if (!call?.lost) continue;
      this.logger.warn(`call ${callId}: its tool executor has not been heard of for ${now - heardAt} ms; telling the client it is lost`);
      lost.push(callId);
      call.lost();
    }
    return lost;
  }

  private heard(callIds: readonly string[]): void {
    const now = Date.now();
    for (const callId of callIds) if (this.heardAt.has(callId)) this.heardAt.set(callId, now);
  }

  /** Ends the streams of a session's calls (the session ended) and returns their ids. */
  closeSession(sessionId: string): string[] {
    const ended: string[] = [];
    for (const [callId, call] of this.calls) {
      if (call.sessionId !== sessionId) continue;
      call.response.close();
      this.close(callId);
      ended.push(callId);
    }
    return ended;
  }

  /**
   * Writes one message of a call on its stream (exported for tests). When the client went away before
   * it got any event id, it cannot resume the call's stream: a request to it (sampling, elicitation,
   * roots) or an elicitation completion goes to the session's GET stream instead, on whichever replica
   * holds it (§3.2.3; a dropped connection does not cancel a legacy call, S-85). Otherwise the message
   * stays on the call's stream, where the client reads it when it resumes (S-88: one stream per message).
   */
  deliver(payload: CallMessage): void {
    const call = this.calls.get(payload.callId);
    if (!call) return;
    this.heardAt.set(payload.callId, Date.now());
    const id = payload.position === undefined || call.streamKey === undefined ? undefined : eventId(call.streamKey, payload.position);
    if (call.response.notify(payload.message, id)) return;
    const method = payload.message['method'];
    const forClient = Object.hasOwn(payload.message, 'id') || method === 'notifications/elicitation/complete';
    if (forClient && call.sessionId !== undefined && !call.response.resumable) {
      this.bus.emit(sessionBroker.sessionMessage, { sessionId: call.sessionId, message: payload.message });
    }
  }
}
