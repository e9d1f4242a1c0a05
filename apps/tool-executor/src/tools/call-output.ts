import { Logger } from '@nestjs/common';
import { sessionBroker, type WireError } from '@mcp-platform/protocol-contracts';
import type { RequestId } from '@mcp-platform/protocol-mcp';
import type { EventLog, MessageBus } from '@mcp-platform/shared-messaging';

/** A message of the call for its client, as it goes out on the wire. */
export type OutgoingMessage = Record<string, unknown>;

/** How a call ended, as its stream's log records it (see `CallStreamEntrySchema`). */
export type CallOutcome = { result: Record<string, unknown> } | { error: WireError };

/** A legacy call's resumable stream: the log key the broker minted, the client's JSON-RPC id, when the broker primes it. */
export interface LoggedStream {
  key: string;
  requestId: RequestId;
  primeAfterMs?: number;
}

/**
 * Where a running call's messages for its client go: a call's stream ({@link CallOutput}), or a task's
 * session (the task worker's `TaskOutput`).
 */
export interface CallSink {
  /** Whether anything sent can reach the client (a legacy call without one cannot ask it anything). */
  readonly reachesClient: boolean;
  /** Whether anything went to the broker: the reply must then wait until it has left the process. */
  readonly sent: boolean;
  /** Sends one message of the call. */
  send(message: OutgoingMessage): void;
  /** A request sent with `send` was answered, or the call stopped waiting for it. */
  settled(inputId: string): void;
  /** Whether a session other than the call's own was sent its requests too, so its answers count (S-325). */
  alsoAnsweredBy(sessionId: string): boolean;
  /** Asks the broker to close the client's connection after what was sent (S-81), where there is one. */
  disconnect(): void;
  /** Records the call's outcome after its messages, where they are logged; resolves once stored or given up on. */
  end(outcome: CallOutcome): Promise<void>;
}

/**
 * Where one running call's messages for its client go, in order: to the broker replica holding the
 * call's stream (`callMessage` on its route). A legacy call with a resumable stream is that stream's
 * only writer: each message is appended to the event log at the next position before it is sent
 * with that position, and the call's outcome is appended last ({@link end}), so a client that
 * reconnects with `Last-Event-ID` to any broker replica, even after the one it was talking to died,
 * reads every message and the result exactly once (S-89, S-90). A message whose append fails still
 * goes out live, without a position (it cannot be replayed; logged at WARN). A call that sent nothing and
 * ends in less than half the broker's priming delay is answered in plain JSON and left the client no event
 * id: its outcome is not logged (one JetStream write saved on every fast call), with half the delay as margin
 * for the reply's trip.
 */
export class CallOutput implements CallSink {
  private readonly logger = new Logger(CallOutput.name);
  private position = 0;
  /** The sends in flight, chained so the log and the wire see the call's order. */
  private queue: Promise<void> = Promise.resolve();
  private sentAny = false;
  private disconnected = false;
  private readonly startedAt = Date.now();

  constructor(
    private readonly callId: string,
    private readonly route: string | undefined,
    private readonly bus: MessageBus,
    private readonly log?: { eventLog: EventLog; stream: LoggedStream },
  ) {}

  get reachesClient(): boolean {
    return this.route !== undefined;
  }

  get sent(): boolean {
    return this.sentAny;
  }

  /** Nothing to do: the client's answer goes to the waiting request, and the stream goes on. */
  settled(_inputId: string): void {
    return undefined;
  }

  /** A call's stream belongs to its session alone. */
  alsoAnsweredBy(_sessionId: string): boolean {
    return false;
  }

  /** Sends one message of the call (nothing when the call has no route to its client). */
  send(message: OutgoingMessage): void {
    const route = this.route;
    if (route === undefined) return;
    this.sentAny = true;
    this.queue = this.queue.then(async () => {
      const position = await this.append({ message });
      this.bus.emit(sessionBroker.callMessage, { callId: this.callId, ...(position === undefined ? {} : { position }), message }, { route });
    });
  }

  /** Asks the broker holding the call's stream to close the client's connection after what was sent (S-81). */
  disconnect(): void {
    const route = this.route;
    if (route === undefined || this.log === undefined) return;
    this.sentAny = true;
    this.disconnected = true;
    this.queue = this.queue.then(() => this.bus.emit(sessionBroker.callDisconnectRequested, { callId: this.callId }, { route }));
  }

  /** Records the call's outcome after its messages (logged streams only); resolves once stored or given up on. */
  async end(outcome: CallOutcome): Promise<void> {
    const stream = this.log?.stream;
    await this.queue;
    if (stream && this.resumable(stream)) await this.append({ requestId: stream.requestId, outcome });
  }

  /** Whether the client may hold an event id of the stream: it got a message or a priming event. */
  private resumable(stream: LoggedStream): boolean {
    if (this.position > 0 || this.disconnected) return true;
    return stream.primeAfterMs !== undefined && Date.now() - this.startedAt >= stream.primeAfterMs / 2;
  }

  /** Appends one entry at the next position; `undefined` when the call has no log or the append failed. */
  private async append(entry: Record<string, unknown>): Promise<number | undefined> {
    if (!this.log) return undefined;
    const position = ++this.position;
    try {
      await this.log.eventLog.append(this.log.stream.key, position, JSON.stringify(entry));
      return position;
    } catch (error) {
      this.logger.warn(`call ${this.callId}: could not log event ${position} of its stream, sent without an id: ${(error as Error).message}`);
      return undefined;
    }
  }
}
