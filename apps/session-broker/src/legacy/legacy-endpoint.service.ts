import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Principal, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import {
  type IncomingMessage,
  InitializeRequestParamsSchema,
  internalError,
  invalidParamsError,
  invalidRequestError,
  isSupportedLegacyVersion,
  jsonRpcError,
  JsonRpcErrorCode,
  legacyCodec,
  McpHttpHeader,
  methodNotFoundError,
  negotiateLegacyVersion,
  type RequestId,
  ServerErrorCode,
} from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { legacyCallId } from '../calls/call-id';
import { CallRegistry } from '../calls/call-registry.service';
import { StreamResumption } from '../calls/stream-resumption.service';
import { answerWithOutcome } from '../methods/method-answer';
import { MethodTable } from '../methods/method-table';
import { serverCapabilities, serverInfo } from '../methods/server-identity';
import { clientNetwork } from '../requests/client-network';
import { headerValue, type McpHttpRequest } from '../requests/mcp-request';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome } from '../requests/method-outcome';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import {
  clientDescriptionProblem,
  describeProblem,
  initializeParamsBytes,
  MAX_INITIALIZE_PARAMS_BYTES,
  storedClientCapabilities,
  storedClientInfo,
} from '../sessions/client-description';
import { type LegacySession, SessionStore } from '../sessions/session.store';
import { type Admission, SessionAdmission } from '../sessions/session-admission.service';
import { LazyResponse, type ResponseTarget } from '../streams/lazy-response';
import { SessionStreams } from '../streams/session-streams.registry';
import { eventId, newStreamKey } from '../streams/stream-ids';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';

type Request = Extract<IncomingMessage, { kind: 'request' }>;

/**
 * How long a legacy `tools/call` may answer in plain JSON before its response becomes a primed SSE
 * stream: fast calls keep the cheap JSON answer (and a 403 step-up challenge stays possible); a slower
 * one becomes resumable even if it never sends anything before its result.
 */
const PRIMING_DELAY_MS = 500;

/** Tasks (S-272) arrived with 2025-11-25. */
function servesTasks(protocolVersion: string): boolean {
  return protocolVersion >= '2025-11-25';
}

/** Priming events (an id and empty data, S-80) arrived with 2025-11-25; older clients may not expect them. */
function sendsPrimingEvents(protocolVersion: string): boolean {
  return protocolVersion >= '2025-11-25';
}

/** When a client refused at a session cap may try again: sessions end by DELETE, eviction or expiry, so a minute is a fair guess. */
const SESSION_CAP_RETRY_AFTER_SECONDS = 60;

/**
 * The legacy era (2025-03-26 / 2025-06-18 / 2025-11-25): the `initialize` handshake, sessions in the
 * shared store, the GET stream, `DELETE`, and the methods those revisions define (S-42..S-48, S-71..S-97).
 */
@Injectable()
export class LegacyEndpoint {
  private readonly logger = new Logger(LegacyEndpoint.name);

  constructor(
    private readonly sessions: SessionStore,
    private readonly admission: SessionAdmission,
    private readonly streams: SessionStreams,
    private readonly resumption: StreamResumption,
    private readonly calls: CallRegistry,
    private readonly table: MethodTable,
    private readonly bus: MessageBus,
    private readonly ids: IdSource,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  async post(
    request: McpHttpRequest,
    message: Exclude<IncomingMessage, { kind: 'invalid' }>,
    server: VirtualServer,
    principal: Principal,
    target: ResponseTarget,
  ): Promise<void> {
    const id = message.kind === 'notification' ? undefined : message.id;
    if (message.kind === 'request' && message.method === 'initialize') return this.initialize(request, message, server, principal, target);

    const resolved = await this.sessionFor(request, server, principal, id, target);
    if (!resolved) return;
    const { sessionId, session } = resolved;
    const response = new LazyResponse(target);

    if (message.kind === 'response') {
      this.answerClientRequest(sessionId, message.id, request.body);
      // spec S-77: a response POSTed by the client is accepted with 202 and no body.
      return response.accepted();
    }
    if (message.kind === 'notification') {
      await this.onNotification(sessionId, message.method, message.params);
      return response.accepted();
    }
    const outcome = await this.serve(message, sessionId, session, server, principal, response);
    const context = { protocolVersion: session.protocolVersion, serverInfo: serverInfo(server, this.options.serverVersion) };
    answerWithOutcome(legacyCodec, message.method, message.id, outcome, response, context, this.logger);
  }

  /**
   * GET: the session's standalone SSE stream (S-86, S-87), or, with `Last-Event-ID`, the resumption of
   * any stream of the session, a call's or a GET's, on this replica whichever held it (S-90).
   */
  async get(request: McpHttpRequest, server: VirtualServer, principal: Principal, expiresAt: number | undefined, target: ResponseTarget): Promise<void> {
    const resolved = await this.sessionFor(request, server, principal, undefined, target);
    if (!resolved) return;
    const response = new LazyResponse(target);
    const opening = {
      sessionId: resolved.sessionId,
      tenant: server.tenant,
      server: server.name,
      priming: sendsPrimingEvents(resolved.session.protocolVersion),
      ...(expiresAt === undefined ? {} : { endsAt: expiresAt }),
    };
    const lastEventId = headerValue(request.headers, 'last-event-id');
    if (lastEventId !== undefined) {
      return this.resumption.resume({ ...opening, lastEventId, subscriptions: resolved.session.subscriptions ?? [] }, response);
    }
    if (!this.streams.attach(opening, response)) {
      response.respond(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Conflict: this session already has a GET stream open'), 409);
    }
  }

  /** DELETE: ends the session on every replica; later requests with its id get 404 (S-93, S-94). */
  async delete(request: McpHttpRequest, server: VirtualServer, principal: Principal, target: ResponseTarget): Promise<void> {
    const resolved = await this.sessionFor(request, server, principal, undefined, target);
    if (!resolved) return;
    const response = new LazyResponse(target);
    try {
      await this.sessions.delete(resolved.sessionId);
    } catch (error) {
      this.logger.error(`could not delete a session: ${(error as Error).message}`);
      return response.respond(internalError(undefined, 'Internal error: the session could not be ended'), 503);
    }
    this.bus.emit(sessionBroker.sessionClosed, { sessionId: resolved.sessionId, reason: 'deleted' });
    response.status(200);
  }

  /**
   * The client's answer to a request one of its calls sent it (sampling, elicitation, roots), POSTed to
   * this replica whichever replica sent the request: its id names the call, and every executor replica
   * hears the answer; the one running the call takes it if it comes from the call's session (§3.2.3).
   * Answers to ids the platform never issued are dropped.
   */
  private answerClientRequest(sessionId: string, id: RequestId, body: unknown): void {
    const callId = toolExecutor.callIdOfClientRequest(id);
    if (callId === undefined) {
      this.logger.debug('dropped a response to a request the platform never sent');
      return;
    }
    const raw = body as { result?: unknown; error?: unknown };
    const answer = toolExecutor.callInputAnswered.payload.safeParse({
      callId,
      inputId: id,
      sessionId,
      outcome: raw.error === undefined ? { result: raw.result } : { error: raw.error },
    });
    if (answer.success) {
      this.bus.emit(toolExecutor.callInputAnswered, answer.data);
      return;
    }
    // The call is waiting: tell it the answer was unusable rather than leave it waiting for ever.
    this.logger.debug(`a malformed answer to ${String(id).slice(0, 40)}: ${answer.error.issues[0]?.message ?? 'invalid'}`);
    this.bus.emit(toolExecutor.callInputAnswered, {
      callId,
      inputId: String(id),
      sessionId,
      outcome: { error: { code: JsonRpcErrorCode.InvalidParams, message: 'the client answered with a malformed JSON-RPC response' } },
    });
  }

  /** A session ended somewhere (this replica or another): close what this replica holds for it. */
  onSessionClosed(sessionId: string): void {
    this.sessions.forget(sessionId);
    this.streams.close(sessionId);
    this.resumption.closeSession(sessionId);
    for (const callId of this.calls.closeSession(sessionId)) {
      this.bus.emit(toolExecutor.callCancelled, { callId, reason: 'the session ended' });
    }
  }

  private async initialize(request: McpHttpRequest, message: Request, server: VirtualServer, principal: Principal, target: ResponseTarget): Promise<void> {
    // Measured before anything else is done with them: a huge description is refused, not parsed and projected.
    const bytes = initializeParamsBytes(message.params);
    const parsed = bytes > MAX_INITIALIZE_PARAMS_BYTES ? undefined : InitializeRequestParamsSchema.safeParse(message.params ?? {});
    if (parsed && !parsed.success) {
      this.logger.debug(`initialize refused: ${parsed.error.message}`);
      return new LazyResponse(target).respond(invalidParamsError(message.id, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo'));
    }
    const problem = clientDescriptionProblem(bytes, parsed?.data.clientInfo ?? { name: '', version: '' });
    if (problem || !parsed) {
      const text = describeProblem(problem ?? { tooLarge: bytes });
      this.logger.debug(`initialize refused: ${text}`);
      return new LazyResponse(target).respond(invalidParamsError(message.id, text), 400);
    }
    // spec S-44: echo a version we serve, otherwise offer our latest.
    const protocolVersion = negotiateLegacyVersion(parsed.data.protocolVersion);
    let admission: Admission;
    try {
      admission = await this.admission.open({
        tenant: server.tenant,
        server: server.name,
        // spec S-97: the session belongs to this caller; another subject presenting its id gets 404.
        subject: principal.subject,
        ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
        anonymous: principal.anonymous,
        // Anonymous callers are counted by their network (the session caps); a principal by itself.
        ...(principal.anonymous ? { clientAddress: clientNetwork(request.clientAddress) } : {}),
        protocolVersion,
        // Only what the platform reads of them: a session's size does not depend on what the client sends.
        clientCapabilities: storedClientCapabilities(parsed.data.capabilities),
        clientInfo: storedClientInfo(parsed.data.clientInfo),
      });
    } catch (error) {
      const errorId = this.ids.newId();
      this.logger.error(`could not store a new session (error id ${errorId}): ${(error as Error).message}`);
      return new LazyResponse(target).respond(internalError(message.id, `Internal error (id ${errorId})`, { errorId }), 503);
    }
    if (!admission.admitted) {
      const text =
        admission.limit === 'tenant'
          ? `Too Many Requests: this tenant already holds its ${admission.max} legacy sessions; end the sessions you no longer use (HTTP DELETE) or retry later`
          : `Service Unavailable: the platform already holds its ${admission.max} legacy sessions; retry later`;
      return new LazyResponse(target).respond(jsonRpcError(message.id, ServerErrorCode.TooManyRequests, text), admission.limit === 'tenant' ? 429 : 503, {
        'retry-after': String(SESSION_CAP_RETRY_AFTER_SECONDS),
      });
    }
    // spec S-91: the session id goes out on the response that carries InitializeResult.
    new LazyResponse(target, { [McpHttpHeader.SessionId]: admission.id }).respond({
      jsonrpc: '2.0',
      id: message.id,
      result: {
        protocolVersion,
        capabilities: serverCapabilities(servesTasks(protocolVersion) ? 'legacy' : undefined),
        serverInfo: serverInfo(server, this.options.serverVersion),
        ...(server.instructions ? { instructions: server.instructions } : {}),
      },
    });
  }

  /**
   * Any method but `initialize`: the legacy codec says whether the session's revision has it (S-13;
   * tasks since 2025-11-25, S-272), the method table serves it with the session as its context.
   */
  private serve(
    message: Request,
    sessionId: string,
    session: LegacySession,
    server: VirtualServer,
    principal: Principal,
    response: LazyResponse,
  ): Promise<MethodOutcome> {
    const method = message.method;
    if (!legacyCodec.has(method, session.protocolVersion) || !this.table.serves(method))
      return Promise.resolve(failure(methodNotFoundError(undefined, method)));
    const call: MethodCall = {
      requestId: message.id,
      virtualServer: server,
      principal,
      protocolVersion: session.protocolVersion,
      clientCapabilities: session.clientCapabilities,
      ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
      response,
      session: { id: sessionId, openCallStream: () => this.callStream(sessionId, session, response) },
      // spec S-275: a 2025-11-25 session asks for a task with params.task; older sessions' task is ignored (S-273).
      tasks: servesTasks(session.protocolVersion) ? 'by-request' : 'never',
    };
    return this.table.serve(method, message.params, call);
  }

  /**
   * A call's resumable stream (S-89, S-90): a fresh log key, written by the executor; the response's
   * events carry `<key>:<position>` ids and, for sessions of 2025-11-25 and later, a slow call's stream
   * opens with a priming event (S-80) and the `retry` delay.
   */
  private callStream(sessionId: string, session: LegacySession, response: LazyResponse): { key: string; primeAfterMs?: number } {
    const key = newStreamKey(sessionId, 'call');
    const priming = sendsPrimingEvents(session.protocolVersion);
    response.makeResumable({ ...(priming ? { primingEventId: eventId(key, 0) } : {}), retryMs: this.options.sseRetryMs });
    return { key, ...(priming ? { primeAfterMs: PRIMING_DELAY_MS } : {}) };
  }

  private async onNotification(sessionId: string, method: string, params: Record<string, unknown> | undefined): Promise<void> {
    if (method === 'notifications/initialized') {
      await this.sessions.update(sessionId, { initialized: true });
      return;
    }
    if (method === 'notifications/roots/list_changed') {
      // spec S-342: the session's calls may run behind any executor replica; every one hears it, and
      // only calls whose client declared roots.listChanged tell their tools.
      this.bus.emit(toolExecutor.sessionRootsChanged, { sessionId });
      return;
    }
    if (method === 'notifications/cancelled') {
      const requestId = params?.['requestId'];
      // spec S-257: malformed cancellations are ignored silently.
      if (typeof requestId !== 'string' && !(typeof requestId === 'number' && Number.isSafeInteger(requestId))) return;
      const reason = typeof params?.['reason'] === 'string' ? (params['reason'] as string).slice(0, 1024) : undefined;
      // The call may run behind another replica: the id is derived, and the event reaches every executor.
      this.bus.emit(toolExecutor.callCancelled, { callId: legacyCallId(sessionId, requestId), ...(reason ? { reason } : {}) });
      this.logger.debug(`cancellation for request ${String(requestId).slice(0, 64)}${reason ? `: ${reason}` : ''}`);
    }
  }

  /**
   * The session a request names, or `undefined` after answering: 400 without an id (S-92), 404 for an
   * unknown or ended one, one of another virtual server (S-93) or one of another caller (S-97: a
   * session id alone is no credential; a refreshed token keeps its subject and client, so it keeps
   * working), 400 for an unsupported `MCP-Protocol-Version` (S-95; any legacy version we serve is
   * accepted, absent means 2025-03-26).
   */
  private async sessionFor(
    request: McpHttpRequest,
    server: VirtualServer,
    principal: Principal,
    id: RequestId | undefined,
    target: ResponseTarget,
  ): Promise<{ sessionId: string; session: LegacySession } | undefined> {
    const sessionId = headerValue(request.headers, McpHttpHeader.SessionId);
    if (sessionId === undefined) {
      new LazyResponse(target).respond(invalidRequestError(id, 'Bad Request: Mcp-Session-Id header is required'), 400);
      return undefined;
    }
    const version = headerValue(request.headers, McpHttpHeader.ProtocolVersion);
    if (version !== undefined && !isSupportedLegacyVersion(version)) {
      new LazyResponse(target).respond(invalidRequestError(id, `Bad Request: unsupported MCP-Protocol-Version ${version.slice(0, 32)}`), 400);
      return undefined;
    }
    let session: LegacySession | undefined;
    try {
      session = await this.sessions.get(sessionId);
    } catch (error) {
      this.logger.error(`session look-up failed: ${(error as Error).message}`);
      new LazyResponse(target).respond(internalError(id, 'Internal error: the session store is unavailable'), 503);
      return undefined;
    }
    if (!session || session.tenant !== server.tenant || session.server !== server.name) {
      new LazyResponse(target).respond(invalidRequestError(id, 'Session not found'), 404);
      return undefined;
    }
    if (session.subject !== principal.subject || session.clientId !== principal.clientId || session.anonymous !== principal.anonymous) {
      // Answered exactly like an unknown session, so a guessed or stolen id reveals nothing.
      this.logger.log(`refused session ${sessionId.slice(0, 8)}… to a caller other than the one that opened it`);
      new LazyResponse(target).respond(invalidRequestError(id, 'Session not found'), 404);
      return undefined;
    }
    return { sessionId, session };
  }
}
