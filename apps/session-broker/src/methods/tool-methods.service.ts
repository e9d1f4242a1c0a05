import { Injectable, Logger } from '@nestjs/common';
import { toolExecutor, type Principal } from '@mcp-platform/protocol-contracts';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { isRpcError, MessageBus, WireErrorCode } from '@mcp-platform/shared-messaging';
import { internalError, invalidParamsError, invalidRequestError, missingRequiredClientCapabilityError, type LoggingLevel, type ProtocolEra, type RequestId } from '@mcp-platform/protocol-mcp';
import { CallRegistry, type ProgressToken } from '../calls/call-registry.service';
import { EdgeAuthenticator } from '../auth/edge-authenticator.service';
import { requiredScopes } from '../calls/wire-error.mapper';
import type { LazyResponse } from '../streams/lazy-response';
import { TaskMethods, TASKS_EXTENSION } from '../tasks/task-methods.service';
import { failure, result, type InputRequiredOutcome, type MethodOutcome } from './method-outcome';
import { nextCursorOf, platformFailureToJsonRpc, readCursor, withCachingHints } from './method-support';

/** What the era-specific front ends hand to the shared tool methods. */
export interface ToolMethodContext {
  era: ProtocolEra;
  protocolVersion: string;
  virtualServer: VirtualServer;
  /** The caller as the edge authenticated it; travels in the bus headers (never the token, S-146). */
  principal: Principal;
  requestId: RequestId;
  params: Record<string, unknown> | undefined;
  response: LazyResponse;
  /** Platform-wide id of this call (legacy: derived from session and request id). */
  callId: string;
  /** Minimum level of log notifications for this call; absent: none. */
  logLevel?: LoggingLevel;
  sessionId?: string;
  /** What the client declared (legacy: at `initialize`; modern: on this request); tools ask only for that. */
  clientCapabilities: Record<string, unknown>;
  /** Modern: a client closing the stream cancels the call (S-108). Legacy: it does not (S-85). */
  cancelWhenClientGone: boolean;
  /**
   * Legacy: the call's resumable stream, whose log the executor writes (S-89, S-90). With `primeAfterMs`
   * (sessions of 2025-11-25 and later, S-80), a call still running then opens its SSE stream with a
   * priming event, so even a call that sends nothing can be resumed on another replica.
   */
  stream?: { key: string; primeAfterMs?: number };
  /** Modern: the client declared the tasks extension, so a tool that allows tasks runs as one (the server decides, S-296). */
  offerTask?: boolean;
}

/**
 * `tools/list` and `tools/call` for both eras, forwarded to the tool executor over the bus. Era
 * differences (caching hints, `resultType`, `_meta`) are added by the callers.
 */
@Injectable()
export class ToolMethods {
  private readonly logger = new Logger(ToolMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly calls: CallRegistry,
    private readonly authenticator: EdgeAuthenticator,
    private readonly tasks: TaskMethods,
  ) {}

  async listTools(context: ToolMethodContext): Promise<MethodOutcome> {
    const cursor = readCursor(context.requestId, context.params);
    if ('failure' in cursor) return cursor.failure;
    try {
      const page = await this.bus.request(
        toolExecutor.listTools,
        { tenant: context.virtualServer.tenant, server: context.virtualServer.name, ...cursor },
        { context: { principal: context.principal } },
      );
      // spec S-246: modern list results carry the caching hints the data's owner computed.
      // spec S-197: `execution.taskSupport` is a 2025-11-25 field; other revisions never hear of it.
      const tools = context.era === 'legacy' && context.protocolVersion >= '2025-11-25' ? page.tools : page.tools.map(withoutExecution);
      return result(withCachingHints(context.era, { tools, ...nextCursorOf(page) }, page));
    } catch (error) {
      return this.toFailure(context, 'tools/list', error);
    }
  }

  /** `tools/call` where the client cannot be asked for input by result (the legacy era: it is asked on the stream). */
  async callTool(context: ToolMethodContext): Promise<MethodOutcome> {
    const outcome = await this.callToolWithInput(context);
    if (outcome.kind !== 'input_required') return outcome;
    // Only modern calls ask by result; a legacy call doing so is the platform's bug, not the client's.
    this.logger.error(`tools/call ${context.callId} (${context.era}) answered input requests`);
    return failure(internalError(context.requestId, 'Internal error: the tool asked for input this protocol version cannot carry'));
  }

  /**
   * `tools/call` with the answers to the call's input requests so far (modern era, multi round-trip
   * requests): the executor answers a result, or the requests its tool still needs answered (S-60).
   */
  async callToolWithInput(context: ToolMethodContext, inputResponses?: Record<string, unknown>): Promise<MethodOutcome | InputRequiredOutcome> {
    const { params, requestId } = context;
    const name = params?.['name'];
    if (typeof name !== 'string' || name.length === 0) return failure(invalidParamsError(requestId, 'Invalid params: name must be a non-empty string'));
    const args = params?.['arguments'];
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return failure(invalidParamsError(requestId, 'Invalid params: arguments must be an object'));
    }
    const progressToken = readProgressToken(params);
    if (progressToken === null) return failure(invalidParamsError(requestId, 'Invalid params: _meta.progressToken must be a string or an integer'));
    if (this.calls.has(context.callId)) {
      return failure(invalidRequestError(requestId, 'Invalid Request: this request id is already in use by a running request'));
    }

    const abort = new AbortController();
    const stream = context.stream;
    this.calls.open(context.callId, {
      response: context.response,
      requestId,
      ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
      ...(stream === undefined ? {} : { streamKey: stream.key }),
    });
    // A fast answer stays plain JSON (and can still be a 403 step-up challenge); a slow one gets its stream primed.
    const priming = stream?.primeAfterMs === undefined ? undefined : setTimeout(() => context.response.openStream(), stream.primeAfterMs);
    if (context.cancelWhenClientGone) {
      context.response.onClientGone(() => {
        // spec S-108: on the modern transport a closed response stream is the cancellation.
        this.logger.debug(`call ${context.callId} cancelled: the client closed its stream`);
        this.bus.emit(toolExecutor.callCancelled, { callId: context.callId, reason: 'the client closed the response stream' });
        abort.abort();
      });
    }
    try {
      const value = await this.bus.request(
        toolExecutor.callTool,
        {
          tenant: context.virtualServer.tenant,
          server: context.virtualServer.name,
          callId: context.callId,
          name,
          ...(args === undefined ? {} : { arguments: args as Record<string, unknown> }),
          protocolVersion: context.protocolVersion,
          clientCapabilities: context.clientCapabilities,
          ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
          ...(stream === undefined
            ? {}
            : { stream: { key: stream.key, requestId, ...(stream.primeAfterMs === undefined ? {} : { primeAfterMs: stream.primeAfterMs }) } }),
          ...(inputResponses === undefined || Object.keys(inputResponses).length === 0 ? {} : { inputResponses }),
          ...(context.offerTask ? { taskMode: 'offer' as const } : {}),
          notify: {
            route: this.calls.route,
            ...(progressToken === undefined ? {} : { progressToken }),
            ...(context.logLevel === undefined ? {} : { logLevel: context.logLevel }),
          },
        },
        { signal: abort.signal, context: { principal: context.principal } },
      );
      if (toolExecutor.isCallInputRequired(value)) return { kind: 'input_required', inputRequests: value.inputRequired.inputRequests };
      if (toolExecutor.isCallRunAsTask(value)) {
        return this.tasks.create({
          era: context.era,
          requestId,
          virtualServer: context.virtualServer,
          principal: context.principal,
          name,
          ...(args === undefined ? {} : { arguments: args as Record<string, unknown> }),
          protocolVersion: context.protocolVersion,
          clientCapabilities: context.clientCapabilities,
        });
      }
      return result(value as Record<string, unknown>);
    } catch (error) {
      // spec S-256: a cancelled request gets no response.
      if (isRpcError(error) && error.code === WireErrorCode.Cancelled) return { kind: 'none' };
      return this.toFailure(context, 'tools/call', error);
    } finally {
      clearTimeout(priming);
      this.calls.close(context.callId);
    }
  }

  /**
   * A failure from the executor as the client sees it. `INSUFFICIENT_SCOPE` travels as HTTP 403 with
   * a step-up challenge naming every scope the operation needs (S-142, S-143) while the response is
   * still plain JSON; once it streams, the JSON-RPC error alone goes out on the stream.
   */
  private toFailure(context: ToolMethodContext, method: string, error: unknown): MethodOutcome {
    if (context.era === 'modern' && isRpcError(error) && error.code === WireErrorCode.Unsupported) {
      // spec S-295: a tool that only runs as a task, for a client that did not declare the tasks extension.
      return failure(missingRequiredClientCapabilityError(context.requestId, { extensions: { [TASKS_EXTENSION]: {} } }), 400);
    }
    const response = platformFailureToJsonRpc(this.logger, context.requestId, method, error);
    if (isRpcError(error) && error.code === WireErrorCode.InsufficientScope) {
      const challenge = this.authenticator.insufficientScope(context.virtualServer, requiredScopes(error.data));
      this.logger.log(`${method} on ${context.virtualServer.tenant}/${context.virtualServer.name}: insufficient scope for ${context.principal.subject}`);
      return failure(response, challenge.status, challenge.headers);
    }
    return failure(response);
  }
}

function withoutExecution<T extends { execution?: unknown }>(tool: T): Omit<T, 'execution'> {
  if (tool.execution === undefined) return tool;
  const { execution: _dropped, ...rest } = tool;
  return rest;
}

/** `_meta.progressToken` as sent; `undefined` when absent, `null` when malformed. */
export function readProgressToken(params: Record<string, unknown> | undefined): ProgressToken | undefined | null {
  const meta = params?.['_meta'];
  if (meta === undefined) return undefined;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return null;
  const token = (meta as Record<string, unknown>)['progressToken'];
  if (token === undefined) return undefined;
  if (typeof token === 'string' || (typeof token === 'number' && Number.isSafeInteger(token))) return token;
  return null;
}
