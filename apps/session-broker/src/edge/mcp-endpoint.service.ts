import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  classifyMessage,
  detectEra,
  internalError,
  invalidParamsError,
  invalidRequestError,
  jsonRpcError,
  JsonRpcErrorCode,
  MAX_PARAMS_DEPTH,
  McpHttpHeader,
  nestsDeeperThan,
  parseError,
  type RequestId,
} from '@mcp-platform/protocol-mcp';
import { drainUntil, type OnDrain } from '@mcp-platform/shared-observability';
import { EdgeAuthenticator } from '../auth/edge-authenticator.service';
import { CallRegistry } from '../calls/call-registry.service';
import { endAtShutdown, SHUTDOWN_RETRY_AFTER, shuttingDownError } from '../calls/shutdown-answers';
import { StreamResumption } from '../calls/stream-resumption.service';
import { LegacyEndpoint } from '../legacy/legacy-endpoint.service';
import { ModernEndpoint } from '../modern/modern-endpoint.service';
import { headerValue, type McpHttpRequest, UNPARSEABLE_BODY } from '../requests/mcp-request';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import { LazyResponse, type ResponseTarget } from '../streams/lazy-response';
import { VirtualServerCache } from '../virtual-servers/virtual-server.cache';
import { EdgePolicy, type EdgeRejection } from './edge-policy';
import { OpenConnections } from './open-connections.registry';

/** A request being served: its JSON-RPC id once the body was read (what a made-up answer at shutdown carries). */
interface InFlight {
  id?: RequestId;
}

/**
 * The MCP endpoint of every virtual server, `/:tenant/:server/mcp`, both eras on one URL (S-56).
 * The edge checks run on headers alone, before the body is read (`rejectEarly`); `handle` resolves
 * the virtual server, authenticates the caller, classifies the message, picks the era and hands over.
 *
 * At shutdown it drains (`onDrain`): new work is refused with 503 and `Retry-After` (a client's answers
 * and notifications still pass: they finish work in flight), requests in flight get the grace to finish,
 * and whatever is still open then ends so its client knows (see `CallRegistry.endOpen`). With
 * `drainHandsOff` (the distributed mode) resumable call streams go to the other replicas at once.
 */
@Injectable()
export class McpEndpoint implements OnDrain {
  private readonly logger = new Logger(McpEndpoint.name);
  private readonly policy: EdgePolicy;
  /** The requests being served, by their response. */
  private readonly inFlight = new Map<ResponseTarget, InFlight>();
  private draining = false;

  constructor(
    private readonly servers: VirtualServerCache,
    private readonly authenticator: EdgeAuthenticator,
    private readonly legacy: LegacyEndpoint,
    private readonly modern: ModernEndpoint,
    private readonly calls: CallRegistry,
    private readonly resumption: StreamResumption,
    private readonly connections: OpenConnections,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {
    this.policy = new EdgePolicy(options.allowedHosts, options.allowedOrigins);
  }

  /** Whether a browser page of `origin` may call the endpoint (S-72: the same allow-list that answers 403). */
  allowsOrigin(origin: string): boolean {
    return this.policy.isOriginAllowed(origin);
  }

  /** Host/Origin (403, S-72) and Accept (406, S-76) from the headers, before any body is read. */
  rejectEarly(method: string, headers: { host?: string; origin?: string; accept?: string }): EdgeRejection | undefined {
    const rejection = this.policy.check(method, headers);
    if (rejection) this.logger.debug(`refused ${method} with ${rejection.status}: ${rejection.reason}`);
    return rejection;
  }

  async handle(request: McpHttpRequest, target: ResponseTarget): Promise<void> {
    const entry: InFlight = {};
    this.inFlight.set(target, entry);
    try {
      await this.serve(request, target, entry);
    } catch (error) {
      // Nothing a client sends may crash the edge; a bug answers -32603 and is logged.
      this.logger.error(`unexpected failure serving ${request.method}: ${(error as Error)?.stack ?? String(error)}`);
      if (!target.headersSent) new LazyResponse(target).respond(internalError(undefined, 'Internal error'), 500);
      else if (!target.writableEnded) target.end();
    } finally {
      this.inFlight.delete(target);
    }
  }

  /**
   * The process stops. Readiness already failed (the health controller drains too); from now on new
   * work is refused. Requests in flight get until `deadline`; with `drainHandsOff`, calls whose clients
   * can resume elsewhere go at once, and the others as they become resumable. Whatever is open at the
   * deadline ends with a JSON-RPC error or, handed off, a close with `retry`: no client is left to wait
   * for its own timeout (the GET and listen streams close afterwards, as the app closes).
   */
  async onDrain(deadline: number): Promise<void> {
    this.draining = true;
    const handOff = this.options.drainHandsOff;
    const open = (): number => [...this.inFlight.keys()].filter((target) => !target.writableEnded).length;
    // A resumed call's stream is resumable by construction: closed with `retry`, its client comes back elsewhere.
    const handOver = (): void => {
      this.calls.handOffResumable();
      this.resumption.disconnectAll();
    };
    if (await drainUntil(deadline, () => open() === 0, handOff ? handOver : undefined)) return;
    this.logger.warn(`${open()} request(s) still open after the shutdown grace: ending them`);
    this.calls.endOpen(handOff);
    this.resumption.disconnectAll();
    for (const [target, entry] of this.inFlight) endAtShutdown(target, entry.id);
  }

  private async serve(request: McpHttpRequest, target: ResponseTarget, entry: InFlight): Promise<void> {
    if (this.draining) {
      const refused = refusedWhileDraining(request);
      if (refused) {
        return new LazyResponse(target).respond(shuttingDownError(refused.id), 503, { 'retry-after': SHUTDOWN_RETRY_AFTER });
      }
    }
    const lookup = await this.servers.resolve(request.tenant, request.server);
    if (!lookup.found) {
      const response = new LazyResponse(target);
      if (lookup.reason === 'not-found') {
        return response.respond(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Not Found: no MCP server at this URL'), 404);
      }
      return response.respond(internalError(undefined, 'The service behind this server is unavailable; retry later'), 503, { 'retry-after': '1' });
    }
    const server = lookup.server;
    // spec S-139: the token is validated before anything else is done with the request.
    const auth = await this.authenticator.authenticate(request, server);
    if (!auth.ok) {
      // Like the other edge refusals: a JSON-RPC error without id (the body is not looked at yet).
      return new LazyResponse(target).respond(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, auth.message), auth.status, auth.headers);
    }
    const principal = auth.principal;
    // Cut at once should the tenant be disabled or the caller's tokens revoked while this is open (a stream).
    this.connections.track(server.tenant, principal.subject, target);
    const sessionId = headerValue(request.headers, McpHttpHeader.SessionId);

    if (request.method === 'GET' || request.method === 'DELETE') {
      // spec S-121: without a session these are modern-path requests, which the transport does not define.
      if (sessionId === undefined) {
        return new LazyResponse(target).respond(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Method Not Allowed'), 405, { allow: 'POST' });
      }
      return request.method === 'GET'
        ? this.legacy.get(request, server, principal, auth.expiresAt, target)
        : this.legacy.delete(request, server, principal, target);
    }
    if (request.method !== 'POST') {
      return new LazyResponse(target).respond(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Method Not Allowed'), 405, {
        allow: 'POST, GET, DELETE',
      });
    }

    if (request.body === UNPARSEABLE_BODY || request.body === undefined) {
      this.logger.debug('refused a body that is not JSON');
      return new LazyResponse(target).respond(parseError(), 400);
    }
    const message = classifyMessage(request.body);
    if (message.kind === 'request') entry.id = message.id;
    if (message.kind === 'invalid') {
      this.logger.debug(`refused an invalid JSON-RPC message: ${message.reason}`);
      return new LazyResponse(target).respond(invalidRequestError(message.id, `Invalid Request: ${message.reason}`), 400);
    }
    if (message.kind !== 'response' && message.params !== undefined && nestsDeeperThan(message.params, MAX_PARAMS_DEPTH)) {
      this.logger.debug(`refused params nested deeper than ${MAX_PARAMS_DEPTH} levels`);
      return new LazyResponse(target).respond(
        invalidParamsError(message.kind === 'request' ? message.id : undefined, `Invalid params: nested deeper than ${MAX_PARAMS_DEPTH} levels`),
        400,
      );
    }
    const era = detectEra({
      ...(message.kind === 'response' ? {} : { method: message.method, ...(message.params ? { params: message.params } : {}) }),
      ...(sessionId === undefined ? {} : { sessionId }),
      ...withVersionHeader(headerValue(request.headers, McpHttpHeader.ProtocolVersion)),
    });
    if (era === 'modern')
      return this.modern.post(request, message, server, { principal, ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }) }, target);
    return this.legacy.post(request, message, server, principal, target);
  }
}

/**
 * What a stopping replica refuses: anything that starts work (a request, a GET stream or its resumption),
 * with the request's id. A client's answers and notifications (cancellations) and DELETE pass: they
 * finish or end work in flight; a malformed body gets its usual 400.
 */
function refusedWhileDraining(request: McpHttpRequest): { id?: RequestId } | undefined {
  if (request.method === 'GET') return {};
  if (request.method !== 'POST') return undefined;
  const message = classifyMessage(request.body);
  return message.kind === 'request' ? { id: message.id } : undefined;
}

function withVersionHeader(value: string | undefined): { protocolVersionHeader?: string } {
  return value === undefined ? {} : { protocolVersionHeader: value };
}
