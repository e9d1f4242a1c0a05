import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@mcp-platform/protocol-contracts';
import {
  decodeMcpHeaderValue,
  expectedMcpName,
  headerMismatchError,
  type IncomingMessage,
  invalidParamsError,
  invalidRequestError,
  isLoggingLevel,
  isSupportedModernVersion,
  type JsonRpcErrorResponse,
  type LoggingLevel,
  McpHttpHeader,
  methodNotFoundError,
  missingClientCapabilities,
  missingRequiredClientCapabilityError,
  modernCodec,
  ModernMetaKey,
  TASKS_EXTENSION,
  TASKS_EXTENSION_CAPABILITY,
  unsupportedProtocolVersionError,
} from '@mcp-platform/protocol-mcp';
import { answerWithOutcome } from '../methods/method-answer';
import { MethodTable, parseParams } from '../methods/method-table';
import { serverInfo } from '../methods/server-identity';
import { clientNetwork } from '../requests/client-network';
import { headerValue, type McpHttpRequest } from '../requests/mcp-request';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome } from '../requests/method-outcome';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import { callerOf } from '../sessions/session.store';
import { LazyResponse, type ResponseTarget } from '../streams/lazy-response';
import { ListenStreams } from '../subscriptions/listen-streams.registry';
import { readSubscriptionFilter } from '../subscriptions/subscription-filter';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { ROUND_TRIP_METHODS, type RoundTripMethod, RoundTrips } from './round-trips.service';

type Request = Extract<IncomingMessage, { kind: 'request' }>;

/** Whether the request's client capabilities declare the tasks extension (S-295). */
function declaresTasksExtension(capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities['extensions'];
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** A validated modern request: its envelope read once. */
interface ModernEnvelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  logLevel?: LoggingLevel;
}

/**
 * The modern era's front end (2026-07-28): stateless, every request self-contained (S-23). Validates the
 * `_meta` envelope and the mirrored headers in the spec's order, then hands the request to the method
 * table (multi round-trip methods through {@link RoundTrips}); the modern codec words every answer
 * (`resultType`, `serverInfo`, caching hints). Never mints or echoes a session id (S-121).
 */
@Injectable()
export class ModernEndpoint {
  private readonly logger = new Logger(ModernEndpoint.name);

  constructor(
    private readonly table: MethodTable,
    private readonly roundTrips: RoundTrips,
    private readonly listens: ListenStreams,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  async post(
    request: McpHttpRequest,
    message: Exclude<IncomingMessage, { kind: 'invalid' }>,
    server: VirtualServer,
    caller: { principal: Principal; expiresAt?: number },
    target: ResponseTarget,
  ): Promise<void> {
    const { principal } = caller;
    const response = new LazyResponse(target);
    if (message.kind === 'response') {
      // spec S-101: modern clients never POST responses (there are no server-to-client requests).
      return response.respond(invalidRequestError(message.id, 'Invalid Request: clients do not send responses in this protocol version'), 400);
    }
    if (message.kind === 'notification') return response.accepted();

    const envelope = this.readEnvelope(request, message);
    if ('error' in envelope) {
      this.logger.debug(`modern request refused (${envelope.status}): ${envelope.error.error.message}`);
      return response.respond(envelope.error, envelope.status);
    }
    if (message.method === 'subscriptions/listen') return this.listen(message, envelope, server, { ...caller, address: request.clientAddress }, response);
    const call: MethodCall = {
      requestId: message.id,
      virtualServer: server,
      // Stateless era: the principal is established per request and stored nowhere.
      principal,
      protocolVersion: envelope.protocolVersion,
      clientCapabilities: envelope.clientCapabilities,
      ...(envelope.logLevel === undefined ? {} : { logLevel: envelope.logLevel }),
      response,
      // spec S-296: with the tasks extension declared, the server decides whether a call becomes a task.
      tasks: declaresTasksExtension(envelope.clientCapabilities) ? 'by-server' : 'never',
      paramHeaders: paramHeadersOf(request),
    };
    const outcome = await this.serve(message, call);
    const context = { protocolVersion: envelope.protocolVersion, serverInfo: serverInfo(server, this.options.serverVersion) };
    answerWithOutcome(modernCodec, message.method, message.id, outcome, response, context, this.logger);
  }

  /** The method table serves it, through the round trips where the handler may ask for input (S-60). */
  private serve(message: Request, call: MethodCall): Promise<MethodOutcome> {
    const method = message.method;
    if (!this.table.serves(method)) return Promise.resolve(failure(methodNotFoundError(undefined, method)));
    if (!ROUND_TRIP_METHODS.has(method)) return this.table.serve(method, message.params, call);
    const roundTrip = method as RoundTripMethod;
    const parsed = parseParams(roundTrip, message.params);
    if (!parsed.ok) return Promise.resolve(failure(invalidParamsError(undefined, parsed.message)));
    return this.roundTrips.run(roundTrip, parsed.command, call);
  }

  /**
   * Checks, in order: the required `_meta` fields (-32602, S-31/S-32), the protocol version header
   * (-32020, S-109), the version itself (-32022, S-52), the log level (-32602, S-235), `Mcp-Method`
   * (-32020, S-112), the method (404 + -32601, S-111), `Mcp-Name` (-32020, S-113/S-114) and the
   * client capabilities the method needs (-32021, S-38). Every failure is HTTP 400 with a JSON-RPC body (S-122).
   */
  private readEnvelope(request: McpHttpRequest, message: Request): ModernEnvelope | { error: JsonRpcErrorResponse; status: number } {
    const id = message.id;
    const meta = message.params?.['_meta'];
    const metaObject = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
    const protocolVersion = metaObject?.[ModernMetaKey.ProtocolVersion];
    if (typeof protocolVersion !== 'string') {
      return { error: invalidParamsError(id, `Invalid params: _meta["${ModernMetaKey.ProtocolVersion}"] must be a string`), status: 400 };
    }
    const clientCapabilities = metaObject?.[ModernMetaKey.ClientCapabilities];
    if (typeof clientCapabilities !== 'object' || clientCapabilities === null || Array.isArray(clientCapabilities)) {
      return { error: invalidParamsError(id, `Invalid params: _meta["${ModernMetaKey.ClientCapabilities}"] must be an object`), status: 400 };
    }
    const versionHeader = headerValue(request.headers, McpHttpHeader.ProtocolVersion);
    if (versionHeader === undefined) return { error: headerMismatchError(id, 'the MCP-Protocol-Version header is required'), status: 400 };
    if (versionHeader !== protocolVersion) {
      return { error: headerMismatchError(id, 'the MCP-Protocol-Version header does not match the _meta protocol version'), status: 400 };
    }
    if (!isSupportedModernVersion(protocolVersion)) return { error: unsupportedProtocolVersionError(id, protocolVersion), status: 400 };
    const logLevel = metaObject?.[ModernMetaKey.LogLevel];
    if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
      return { error: invalidParamsError(id, `Invalid params: _meta["${ModernMetaKey.LogLevel}"] is not a logging level`), status: 400 };
    }
    const methodHeader = headerValue(request.headers, McpHttpHeader.Method);
    if (methodHeader === undefined) return { error: headerMismatchError(id, 'the Mcp-Method header is required'), status: 400 };
    if (methodHeader !== message.method) return { error: headerMismatchError(id, 'the Mcp-Method header does not match the method'), status: 400 };
    if (!modernCodec.has(message.method, protocolVersion)) return { error: methodNotFoundError(id, message.method), status: modernCodec.methodNotFoundStatus };
    const name = expectedMcpName(message.method, message.params);
    if (name.required) {
      const nameHeader = headerValue(request.headers, McpHttpHeader.Name);
      if (nameHeader === undefined) return { error: headerMismatchError(id, 'the Mcp-Name header is required for this method'), status: 400 };
      const decoded = decodeMcpHeaderValue(nameHeader);
      if (!decoded.ok) return { error: headerMismatchError(id, `the Mcp-Name header is malformed: ${decoded.reason}`), status: 400 };
      if (decoded.value !== name.value) return { error: headerMismatchError(id, 'the Mcp-Name header does not match the request body'), status: 400 };
    }
    const required = modernCodec.requiredCapabilities(message.method);
    const missing = required ? missingClientCapabilities(required, clientCapabilities as Record<string, unknown>) : undefined;
    if (missing) return { error: missingRequiredClientCapabilityError(id, missing), status: 400 };
    return {
      protocolVersion,
      clientCapabilities: clientCapabilities as Record<string, unknown>,
      ...(logLevel === undefined ? {} : { logLevel }),
    };
  }

  /**
   * `subscriptions/listen` (S-308): the response becomes a long-lived stream that starts with the
   * acknowledgement and carries only what the filter asked for, each notification tagged with the
   * request's id; it ends when the client closes it, or with the result when this replica shuts down
   * or the caller's access token expires (the client listens again with a fresh one). Task status
   * pushes (`taskIds`) are the tasks extension's: only for a request declaring it (S-304).
   */
  private listen(
    message: Request,
    envelope: ModernEnvelope,
    server: VirtualServer,
    caller: { principal: Principal; expiresAt?: number; address: string | undefined },
    response: LazyResponse,
  ): void {
    const filter = readSubscriptionFilter(message.params);
    if ('invalid' in filter) {
      this.logger.debug(`subscriptions/listen refused: ${filter.invalid}`);
      return response.respond(invalidParamsError(message.id, `Invalid params: ${filter.invalid}`));
    }
    if (filter.taskIds.size > 0 && !declaresTasksExtension(envelope.clientCapabilities)) {
      // spec S-304, S-295: -32021 naming the extension, HTTP 400 like every envelope failure (S-122).
      return response.respond(missingRequiredClientCapabilityError(message.id, TASKS_EXTENSION_CAPABILITY), 400);
    }
    this.listens.open({
      id: message.id,
      tenant: server.tenant,
      server: server.name,
      principal: caller.principal,
      // Counted as legacy sessions are: an anonymous caller by its network, anyone else by tenant and subject.
      caller: callerOf({ ...caller.principal, ...(caller.principal.anonymous ? { clientAddress: clientNetwork(caller.address) } : {}) }),
      filter,
      response,
      ...(caller.expiresAt === undefined ? {} : { endsAt: caller.expiresAt }),
      completion: () =>
        modernCodec.encodeResult(
          'subscriptions/listen',
          { body: { _meta: { [ModernMetaKey.SubscriptionId]: message.id } } },
          { protocolVersion: envelope.protocolVersion, serverInfo: serverInfo(server, this.options.serverVersion) },
        ),
    });
  }
}

/** The `Mcp-Param-*` headers of a request (SEP-2243), by lower-case name after the prefix. */
function paramHeadersOf(request: McpHttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(request.headers)) {
    if (!name.startsWith(MCP_PARAM_PREFIX)) continue;
    const value = headerValue(request.headers, name);
    if (value !== undefined) headers[name.slice(MCP_PARAM_PREFIX.length)] = value;
  }
  return headers;
}

/** Node lower-cases header names. */
const MCP_PARAM_PREFIX = 'mcp-param-';
