import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@mcp-platform/protocol-contracts';
import {
  decodeMcpHeaderValue,
  expectedMcpName,
  headerMismatchError,
  invalidParamsError,
  invalidRequestError,
  isLoggingLevel,
  isSupportedModernVersion,
  McpHttpHeader,
  methodNotFoundError,
  missingClientCapabilities,
  missingRequiredClientCapabilityError,
  ModernMetaKey,
  ResultType,
  SUPPORTED_PROTOCOL_VERSIONS,
  unsupportedProtocolVersionError,
  type IncomingMessage,
  type JsonRpcErrorResponse,
  type LoggingLevel,
} from '@mcp-platform/protocol-mcp';
import { modernCallId } from '../calls/call-id';
import { clientNetwork } from '../edge/client-network';
import { headerValue, type McpHttpRequest } from '../edge/mcp-request';
import { callerOf } from '../legacy/session.store';
import type { InputRequiredOutcome, MethodOutcome } from '../methods/method-outcome';
import { serverCapabilities, serverInfo } from '../methods/server-identity';
import { TaskMethods, TASKS_EXTENSION } from '../tasks/task-methods.service';
import { isResourceStoreMethod, RESOURCE_STORE_METHODS, ResourceMethods } from '../methods/resource-methods.service';
import { ToolMethods, type ToolMethodContext } from '../methods/tool-methods.service';
import { SESSION_BROKER_OPTIONS, type ResolvedSessionBrokerOptions } from '../session-broker.options';
import { LazyResponse, type ResponseTarget } from '../streams/lazy-response';
import { ListenStreams } from '../subscriptions/listen-streams.registry';
import { readSubscriptionFilter } from '../subscriptions/subscription-filter';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { ToolRoundTrips } from './tool-round-trips.service';

type Request = Extract<IncomingMessage, { kind: 'request' }>;

/** How long clients may cache `server/discover` (S-246); the catalog is not user-specific yet. */
const DISCOVER_TTL_MS = 60_000;

/**
 * The client capabilities each modern method needs (S-38). None of today's methods needs one; the
 * check runs anyway, so a method that does (sampling-backed tools, tasks) only adds a line here.
 */
const TASKS_EXTENSION_NEEDED = { extensions: { [TASKS_EXTENSION]: {} } };
/** spec S-295: the task methods serve only clients that declared the tasks extension on the request. */
const REQUIRED_CLIENT_CAPABILITIES: Readonly<Record<string, Record<string, unknown>>> = {
  'tasks/get': TASKS_EXTENSION_NEEDED,
  'tasks/update': TASKS_EXTENSION_NEEDED,
  'tasks/cancel': TASKS_EXTENSION_NEEDED,
};

const METHODS = new Set<string>(['server/discover', 'subscriptions/listen', 'tools/list', 'tools/call', 'tasks/get', 'tasks/update', 'tasks/cancel', ...RESOURCE_STORE_METHODS]);

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
 * The modern era (2026-07-28): stateless, every request self-contained (S-23). Validates the `_meta`
 * envelope and the mirrored headers in the spec's order, then serves the method; every result gets
 * `resultType` (S-6) and `serverInfo` in `_meta` (S-35). Never mints or echoes a session id (S-121).
 */
@Injectable()
export class ModernEndpoint {
  private readonly logger = new Logger(ModernEndpoint.name);

  constructor(
    private readonly tools: ToolMethods,
    private readonly roundTrips: ToolRoundTrips,
    private readonly resources: ResourceMethods,
    private readonly listens: ListenStreams,
    private readonly tasks: TaskMethods,
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
    const outcome = await this.dispatch(message, envelope, server, principal, response);
    if (outcome.kind === 'result') {
      response.respond({ jsonrpc: '2.0', id: message.id, result: this.complete(outcome.result, server) });
    } else if (outcome.kind === 'task') {
      response.respond({ jsonrpc: '2.0', id: message.id, result: this.taskCreated(outcome.task, server) });
    } else if (outcome.kind === 'input_required') {
      response.respond({ jsonrpc: '2.0', id: message.id, result: this.inputRequired(outcome, server) });
    } else if (outcome.kind === 'error') {
      response.respond(outcome.error, outcome.status, outcome.headers);
    } else {
      response.close();
    }
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
    if (!METHODS.has(message.method)) return { error: methodNotFoundError(id, message.method), status: 404 };
    const name = expectedMcpName(message.method, message.params);
    if (name.required) {
      const nameHeader = headerValue(request.headers, McpHttpHeader.Name);
      if (nameHeader === undefined) return { error: headerMismatchError(id, 'the Mcp-Name header is required for this method'), status: 400 };
      const decoded = decodeMcpHeaderValue(nameHeader);
      if (!decoded.ok) return { error: headerMismatchError(id, `the Mcp-Name header is malformed: ${decoded.reason}`), status: 400 };
      if (decoded.value !== name.value) return { error: headerMismatchError(id, 'the Mcp-Name header does not match the request body'), status: 400 };
    }
    const required = REQUIRED_CLIENT_CAPABILITIES[message.method];
    const missing = required ? missingClientCapabilities(required, clientCapabilities as Record<string, unknown>) : undefined;
    if (missing) return { error: missingRequiredClientCapabilityError(id, missing), status: 400 };
    return {
      protocolVersion,
      clientCapabilities: clientCapabilities as Record<string, unknown>,
      ...(logLevel === undefined ? {} : { logLevel }),
    };
  }

  private dispatch(
    message: Request,
    envelope: ModernEnvelope,
    server: VirtualServer,
    principal: Principal,
    response: LazyResponse,
  ): Promise<MethodOutcome | InputRequiredOutcome> | MethodOutcome {
    if (message.method === 'server/discover') {
      return {
        kind: 'result',
        result: {
          supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
          capabilities: serverCapabilities('modern'),
          ...(server.instructions ? { instructions: server.instructions } : {}),
          ttlMs: DISCOVER_TTL_MS,
          cacheScope: 'public',
        },
      };
    }
    if (message.method === 'tasks/get' || message.method === 'tasks/update' || message.method === 'tasks/cancel') {
      // Stateless era: a task belongs to the principal (S-289); there is no session.
      const context = { era: 'modern' as const, requestId: message.id, virtualServer: server, principal };
      if (message.method === 'tasks/get') return this.tasks.get(context, message.params);
      if (message.method === 'tasks/update') return this.tasks.update(context, message.params);
      return this.tasks.cancel(context, message.params);
    }
    if (isResourceStoreMethod(message.method)) {
      // Stateless era: the principal is established per request and stored nowhere.
      return this.resources.handle(message.method, { era: 'modern', virtualServer: server, principal, requestId: message.id, params: message.params });
    }
    const context: ToolMethodContext = {
      era: 'modern',
      protocolVersion: envelope.protocolVersion,
      virtualServer: server,
      // Stateless era: the principal is established per request and stored nowhere.
      principal,
      requestId: message.id,
      params: message.params,
      response,
      callId: modernCallId(),
      clientCapabilities: envelope.clientCapabilities,
      ...(envelope.logLevel === undefined ? {} : { logLevel: envelope.logLevel }),
      cancelWhenClientGone: true,
      offerTask: declaresTasksExtension(envelope.clientCapabilities),
    };
    return message.method === 'tools/list' ? this.tools.listTools(context) : this.roundTrips.callTool(context);
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
      return response.respond(missingRequiredClientCapabilityError(message.id, TASKS_EXTENSION_NEEDED), 400);
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
      completion: () => this.complete({ _meta: { [ModernMetaKey.SubscriptionId]: message.id } }, server),
    });
  }

  /**
   * An `InputRequiredResult` (S-60): the requests and the sealed state (S-62), our `serverInfo`, and
   * no caching hints (S-70).
   */
  private inputRequired(outcome: InputRequiredOutcome, server: VirtualServer): Record<string, unknown> {
    return {
      resultType: ResultType.InputRequired,
      inputRequests: outcome.inputRequests,
      ...(outcome.requestState === undefined ? {} : { requestState: outcome.requestState }),
      _meta: { [ModernMetaKey.ServerInfo]: serverInfo(server, this.options.serverVersion) },
    };
  }

  /** A `CreateTaskResult` (S-297): the task's fields, `resultType: "task"`, our `serverInfo`. */
  private taskCreated(task: Record<string, unknown>, server: VirtualServer): Record<string, unknown> {
    return { ...task, resultType: 'task', _meta: { [ModernMetaKey.ServerInfo]: serverInfo(server, this.options.serverVersion) } };
  }

  /** Adds `resultType` (S-6) and our `serverInfo` to the result's `_meta` (S-35). */
  private complete(result: Record<string, unknown>, server: VirtualServer): Record<string, unknown> {
    const meta = typeof result['_meta'] === 'object' && result['_meta'] !== null ? (result['_meta'] as Record<string, unknown>) : {};
    return {
      ...result,
      resultType: ResultType.Complete,
      _meta: { ...meta, [ModernMetaKey.ServerInfo]: serverInfo(server, this.options.serverVersion) },
    };
  }
}
