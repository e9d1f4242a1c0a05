import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { sessionBroker } from '@mcp-platform/protocol-contracts';
import { invalidRequestError, JSONRPC_VERSION, jsonRpcError, JsonRpcErrorCode } from '@mcp-platform/protocol-mcp';
import { EventLog, type LoggedEvent, WireErrorCode } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import type { LazyResponse } from '../streams/lazy-response';
import { type GetStreamOpening, SessionStreams } from '../streams/session-streams.registry';
import { endWhenExpired, keepAliveEvery } from '../streams/stream-expiry';
import { eventId, type ParsedEventId, parseEventId } from '../streams/stream-ids';
import { wireErrorToJsonRpc } from './wire-error.mapper';

/** A GET carrying `Last-Event-ID`: the stream to resume, and the session and caller it comes from. */
export interface ResumeRequest extends Omit<GetStreamOpening, 'replace'> {
  lastEventId: string;
  /** The session's resource subscriptions (legacy `resources/subscribe`), for the resynchronisation of a GET stream. */
  subscriptions: readonly string[];
}

interface ResumedCall {
  sessionId: string;
  stop: AbortController;
}

/**
 * Resumption of legacy SSE streams (S-90) on any replica: a GET with `Last-Event-ID` replays, from the
 * event log, the events of the stream that id names after it, never another stream's.
 *
 * - A call's stream (its POST was cut: network, polling, a broker that stopped or died) is read from the
 *   log after the id and then followed live until the call's outcome, which ends it with the JSON-RPC
 *   response, whichever replica took the POST: the executor writes the call's log, not a broker.
 * - A GET stream is replayed up to its last logged event, then this GET becomes the session's stream
 *   on this replica, with a new key, and carries what comes next. What happened while no connection held
 *   the stream was never logged (its replica may have died), so the resumed stream then says, once, that
 *   every list may have changed and every subscribed resource may have been updated: the client reads
 *   them again rather than miss a change (S-207, S-206: these notifications are invitations to re-read).
 *
 * Retention is the log's (`EVENT_LOG_RETENTION_SECONDS`). An id is honoured while the event it names
 * is still kept (a priming id, position 0: while the stream's first event is, or while it has none and
 * is younger than the retention); otherwise a call's stream answers `410 Gone` with a JSON-RPC error
 * saying so, and a GET stream starts afresh (what it carried in between is lost, and logged).
 */
@Injectable()
export class StreamResumption implements OnModuleDestroy {
  private readonly logger = new Logger(StreamResumption.name);
  private readonly resumedCalls = new Map<LazyResponse, ResumedCall>();

  constructor(
    private readonly log: EventLog,
    private readonly streams: SessionStreams,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  async resume(request: ResumeRequest, response: LazyResponse): Promise<void> {
    const resumeFrom = parseEventId(request.lastEventId, request.sessionId);
    if (!resumeFrom) {
      this.logger.debug('refused a Last-Event-ID that names no stream of the session');
      return response.respond(invalidRequestError(undefined, 'Bad Request: Last-Event-ID names no stream of this session'), 400);
    }
    let retained: boolean;
    try {
      retained = await this.isRetained(resumeFrom);
    } catch (error) {
      this.logger.error(`the event log is unavailable: ${(error as Error).message}`);
      return response.respond(jsonRpcError(undefined, JsonRpcErrorCode.InternalError, 'Internal error: the event log is unavailable'), 503);
    }
    if (resumeFrom.kind === 'call') {
      if (retained) return this.resumeCall(request, resumeFrom, response);
      this.logger.log(`refused to resume a call stream from an event no longer kept (opened ${new Date(resumeFrom.openedAt).toISOString()})`);
      const minutes = Math.round(this.log.retentionMs / 60_000);
      return response.respond(
        jsonRpcError(
          undefined,
          JsonRpcErrorCode.InvalidRequest,
          `Gone: the events after this Last-Event-ID are no longer kept (streams are kept ${minutes} minutes)`,
        ),
        410,
      );
    }
    if (retained) {
      response.makeResumable({ ...(request.priming ? { primingEventId: request.lastEventId } : {}), retryMs: this.options.sseRetryMs });
      response.openStream();
      try {
        await this.replayGetStream(resumeFrom, response);
      } catch (error) {
        this.logger.warn(`replaying a GET stream failed: ${(error as Error).message}`);
        return response.disconnect();
      }
    } else {
      this.logger.log(`a GET stream was resumed from an event no longer kept: it starts afresh, what it carried in between is lost`);
    }
    if (!response.open || !this.streams.attach({ ...request, replace: true }, response)) return;
    for (const list of ['tools', 'resources', 'prompts'])
      this.streams.send(request.sessionId, { jsonrpc: JSONRPC_VERSION, method: `notifications/${list}/list_changed` });
    for (const uri of request.subscriptions) {
      this.streams.send(request.sessionId, { jsonrpc: JSONRPC_VERSION, method: 'notifications/resources/updated', params: { uri } });
    }
  }

  /** A session ended: the call streams resumed here for it end too (S-84). */
  closeSession(sessionId: string): void {
    for (const [response, call] of this.resumedCalls) {
      if (call.sessionId !== sessionId) continue;
      call.stop.abort();
      response.close();
    }
  }

  /** At shutdown resumed call streams close with `retry` (S-81): their clients resume elsewhere again. */
  onModuleDestroy(): void {
    this.disconnectAll();
  }

  /** Closes every resumed call stream with `retry`, so its client resumes again (elsewhere). */
  disconnectAll(): void {
    for (const [response, call] of [...this.resumedCalls]) {
      call.stop.abort();
      response.disconnect();
    }
  }

  private async isRetained(from: ParsedEventId): Promise<boolean> {
    const first = await this.log.firstAvailable(from.key);
    if (from.position > 0) return first !== undefined && first <= from.position;
    return first === 1 || (first === undefined && Date.now() - from.openedAt < this.log.retentionMs);
  }

  /** Replays the call's events after the id, then follows the log until the call's outcome ends the stream. */
  private async resumeCall(request: ResumeRequest, from: ParsedEventId, response: LazyResponse): Promise<void> {
    response.makeResumable({ ...(request.priming ? { primingEventId: request.lastEventId } : {}), retryMs: this.options.sseRetryMs });
    response.openStream();
    const stop = new AbortController();
    this.resumedCalls.set(response, { sessionId: request.sessionId, stop });
    const keepAlive = keepAliveEvery(response);
    const expiry = request.endsAt === undefined ? undefined : endWhenExpired(request.endsAt, () => response.close());
    response.onClientGone(() => stop.abort());
    try {
      await this.log.read(from.key, from.position, (event) => this.writeCallEvent(from.key, event, response, stop), stop.signal);
    } catch (error) {
      this.logger.warn(`following a call stream failed: ${(error as Error).message}`);
      response.disconnect();
    } finally {
      clearInterval(keepAlive);
      clearTimeout(expiry);
      this.resumedCalls.delete(response);
      // Ended by expiry or session end: nothing more will be written.
      if (!stop.signal.aborted) stop.abort();
    }
  }

  private writeCallEvent(key: string, event: LoggedEvent, response: LazyResponse, stop: AbortController): void {
    if (stop.signal.aborted) return;
    const entry = parseEntry(event.data);
    if (!entry) {
      this.logger.warn(`skipped an unreadable event ${event.n} of a call stream`);
      return;
    }
    if ('message' in entry) {
      if (!response.notify(entry.message, eventId(key, event.n))) stop.abort();
      return;
    }
    stop.abort();
    const { outcome, requestId } = entry;
    if ('result' in outcome) return response.respond({ jsonrpc: '2.0', id: requestId, result: outcome.result });
    // spec S-256: a cancelled request gets no response; its stream just ends.
    if (outcome.error.code === WireErrorCode.Cancelled) return response.close();
    response.respond(wireErrorToJsonRpc(requestId, outcome.error));
  }

  /** Writes the GET stream's events after the id up to its last logged one, with their own ids. */
  private async replayGetStream(from: ParsedEventId, response: LazyResponse): Promise<void> {
    const last = await this.log.lastPosition(from.key);
    if (last === undefined || last <= from.position) return;
    const stop = new AbortController();
    response.onClientGone(() => stop.abort());
    await this.log.read(
      from.key,
      from.position,
      (event) => {
        if (stop.signal.aborted) return;
        const entry = parseEntry(event.data);
        if (entry && 'message' in entry) response.notify(entry.message, eventId(from.key, event.n));
        if (event.n >= last) stop.abort();
      },
      stop.signal,
    );
  }
}

function parseEntry(data: string): ReturnType<typeof sessionBroker.CallStreamEntrySchema.parse> | undefined {
  try {
    const parsed = sessionBroker.CallStreamEntrySchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
