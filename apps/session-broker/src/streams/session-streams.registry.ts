import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { JSONRPC_VERSION } from '@mcp-platform/protocol-mcp';
import { EventLog } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import type { LazyResponse } from './lazy-response';
import { endWhenExpired, keepAliveEvery } from './stream-expiry';
import { eventId, newStreamKey } from './stream-ids';

interface SessionStream {
  response: LazyResponse;
  tenant: string;
  server: string;
  /** The stream's log key; its events' ids are `<key>:<position>`. */
  key: string;
  position: number;
  /** The stream's writes in flight, chained so the log and the wire see the same order. */
  queue: Promise<void>;
  keepAlive: NodeJS.Timeout;
  expiry?: NodeJS.Timeout;
}

/** Where a GET stream belongs, and how it starts. */
export interface GetStreamOpening {
  sessionId: string;
  tenant: string;
  server: string;
  /** Sessions of 2025-11-25 and later get a priming event (S-80). */
  priming: boolean;
  /** The access token's expiry (epoch ms): the stream closes then; the client opens it again with a fresh token. */
  endsAt?: number;
  /** A resumed stream replaces the one this replica may still hold for the session (its client is gone). */
  replace?: boolean;
}

/**
 * The legacy GET streams open on this replica, one per session (S-86..S-88): where notifications
 * unrelated to a request go, e.g. `notifications/tools/list_changed`. Each connection is a stream of its
 * own with a fresh log key; this replica is its only writer and appends every event to the log before
 * sending it with its id (S-89), so a client whose connection broke (even with this replica) resumes
 * with `Last-Event-ID` anywhere and gets what it missed (see `StreamResumption`).
 */
@Injectable()
export class SessionStreams implements OnModuleDestroy {
  private readonly logger = new Logger(SessionStreams.name);
  private readonly streams = new Map<string, SessionStream>();

  constructor(
    private readonly log: EventLog,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  /** False when the session already has a GET stream on this replica (and `replace` was not asked). */
  attach(opening: GetStreamOpening, response: LazyResponse): boolean {
    const { sessionId } = opening;
    const existing = this.streams.get(sessionId);
    if (existing?.response.open) {
      if (!opening.replace) return false;
      this.close(sessionId);
    }
    const key = newStreamKey(sessionId, 'get');
    response.makeResumable({ ...(opening.priming ? { primingEventId: eventId(key, 0) } : {}), retryMs: this.options.sseRetryMs });
    response.openStream();
    const keepAlive = keepAliveEvery(response);
    const expiry = opening.endsAt === undefined ? undefined : endWhenExpired(opening.endsAt, () => this.close(sessionId));
    this.streams.set(sessionId, {
      response,
      tenant: opening.tenant,
      server: opening.server,
      key,
      position: 0,
      queue: Promise.resolve(),
      keepAlive,
      ...(expiry ? { expiry } : {}),
    });
    response.onClientGone(() => this.detach(sessionId, response));
    return true;
  }

  /**
   * Tells every session of the named servers (none named: all of the tenant's) that one of their
   * lists changed: `notifications/<list>/list_changed` (S-207, S-223), one stream each (S-88).
   */
  notifyListChanged(tenant: string, servers: readonly string[], list: 'tools' | 'resources' | 'prompts'): number {
    let sent = 0;
    for (const stream of this.streams.values()) {
      if (stream.tenant !== tenant || (servers.length > 0 && !servers.includes(stream.server))) continue;
      if (this.write(stream, { jsonrpc: JSONRPC_VERSION, method: `notifications/${list}/list_changed` })) sent++;
    }
    return sent;
  }

  /**
   * Sends `notifications/resources/updated { uri }` (S-206) on the GET stream of every session of the
   * tenant held here for which `subscribed(sessionId)` says it asked for `uri`; one stream each (S-88).
   */
  notifyResourceUpdated(tenant: string, uri: string, subscribed: (sessionId: string) => boolean): number {
    let sent = 0;
    for (const [sessionId, stream] of this.streams) {
      if (stream.tenant !== tenant || !subscribed(sessionId)) continue;
      if (this.write(stream, { jsonrpc: JSONRPC_VERSION, method: 'notifications/resources/updated', params: { uri } })) sent++;
    }
    return sent;
  }

  /** Writes one message on the session's GET stream, if this replica holds it; false otherwise. */
  send(sessionId: string, message: Record<string, unknown>): boolean {
    const stream = this.streams.get(sessionId);
    return stream ? this.write(stream, message) : false;
  }

  /** Ends the session's GET stream (the session ended, S-84). */
  close(sessionId: string): void {
    const stream = this.streams.get(sessionId);
    if (!stream) return;
    stream.response.close();
    this.detach(sessionId, stream.response);
  }

  /** At shutdown the connections close with `retry` (S-81): clients reconnect to another replica and resume. */
  onModuleDestroy(): void {
    for (const [sessionId, stream] of [...this.streams]) {
      stream.response.disconnect();
      this.detach(sessionId, stream.response);
    }
  }

  /** Appends the message to the stream's log, then sends it with its id; a failed append still sends it, without an id. */
  private write(stream: SessionStream, message: Record<string, unknown>): boolean {
    if (!stream.response.open) return false;
    const position = ++stream.position;
    stream.queue = stream.queue.then(async () => {
      let id: string | undefined = eventId(stream.key, position);
      try {
        await this.log.append(stream.key, position, JSON.stringify({ message }));
      } catch (error) {
        id = undefined;
        this.logger.warn(`could not log GET stream event ${position}; sent without an id: ${(error as Error).message}`);
      }
      stream.response.notify(message, id);
    });
    return true;
  }

  private detach(sessionId: string, response: LazyResponse): void {
    const stream = this.streams.get(sessionId);
    if (!stream || stream.response !== response) return;
    clearInterval(stream.keepAlive);
    clearTimeout(stream.expiry);
    this.streams.delete(sessionId);
  }
}
