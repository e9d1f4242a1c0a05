import { Injectable, Logger } from '@nestjs/common';
import { type sessionBroker, toolExecutor, type UpstreamTask } from '@mcp-platform/protocol-contracts';
import { type CallToolParams, invalidRequestError, type ListParams } from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { EventLog, isRpcError, MessageBus, RpcError, toWireError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { EdgeAuthenticator } from '../auth/edge-authenticator.service';
import { legacyCallId, modernCallId } from '../calls/call-id';
import { CallRegistry } from '../calls/call-registry.service';
import { requiredScopes } from '../calls/wire-error.mapper';
import type { MethodCall } from '../requests/method-call';
import { failure, inputRequired, type MethodOutcome, result } from '../requests/method-outcome';
import { nextCursorOf, platformFailure } from '../requests/method-support';
import { TaskMethods } from '../tasks/task-methods.service';

/**
 * `tools/list` and `tools/call`, forwarded to the tool executor over the bus, the same for both eras:
 * the era's codec words the answer. A call in a session has a resumable stream and is not cancelled by
 * a dropped connection (S-85); a call on the stateless wire is cancelled when its client closes the
 * stream (S-108) and asks for input by result (S-60).
 */
/** Why a call was given up: its executor stopped telling the broker it runs it (it died; `CallRegistry.giveUpSilent`). */
const EXECUTOR_LOST = new RpcError(WireErrorCode.Unavailable, 'the tool executor running the call stopped before it answered');

@Injectable()
export class ToolMethods {
  private readonly logger = new Logger(ToolMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly calls: CallRegistry,
    private readonly authenticator: EdgeAuthenticator,
    private readonly tasks: TaskMethods,
    private readonly ids: IdSource,
    private readonly eventLog: EventLog,
  ) {}

  async listTools(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    try {
      const page = await this.bus.request(
        toolExecutor.listTools,
        { tenant: call.virtualServer.tenant, server: call.virtualServer.name, ...(command.cursor === undefined ? {} : { cursor: command.cursor }) },
        { context: { principal: call.principal } },
      );
      // spec S-246: the caching hints the data's owner computed.
      return result({ tools: page.tools, ...nextCursorOf(page) }, page);
    } catch (error) {
      return this.toFailure(call, 'tools/list', error);
    }
  }

  /**
   * `tools/call`: a task at once when the request asks for one (S-275); else the executor answers a
   * result, the requests its tool needs answered first (S-60), or that the call runs as a task (S-296).
   */
  async callTool(command: CallToolParams, call: MethodCall): Promise<MethodOutcome> {
    const { name, arguments: args } = command;
    const progressToken = command._meta?.progressToken;
    if (command.task !== undefined && call.tasks === 'by-request') {
      return this.tasks.create(call, {
        name,
        ...(args === undefined ? {} : { arguments: args }),
        ...(command.task.ttl === undefined ? {} : { requestedTtlMs: command.task.ttl }),
        // The token stays valid for the task's whole life; its progress and logs go to the session.
        ...(progressToken === undefined ? {} : { progressToken }),
      });
    }
    const session = call.session;
    const callId = session === undefined ? modernCallId(this.ids.newId()) : legacyCallId(session.id, call.requestId);
    if (this.calls.has(callId)) return failure(invalidRequestError(undefined, 'Invalid Request: this request id is already in use by a running request'));

    const abort = new AbortController();
    const stream = session?.openCallStream();
    this.calls.open(callId, {
      response: call.response,
      requestId: call.requestId,
      ...(session === undefined ? {} : { sessionId: session.id }),
      ...(stream === undefined ? {} : { streamKey: stream.key }),
      lost: () => abort.abort(EXECUTOR_LOST),
    });
    // A fast answer stays plain JSON (and can still be a 403 step-up challenge); a slow one gets its stream primed.
    const priming = stream?.primeAfterMs === undefined ? undefined : setTimeout(() => call.response.openStream(), stream.primeAfterMs);
    if (session === undefined) {
      call.response.onClientGone(() => {
        // spec S-108: without a session, a closed response stream is the cancellation.
        this.logger.debug(`call ${callId} cancelled: the client closed its stream`);
        this.bus.emit(toolExecutor.callCancelled, { callId, reason: 'the client closed the response stream' });
        abort.abort();
      });
    }
    try {
      const value = await this.bus.request(
        toolExecutor.callTool,
        {
          tenant: call.virtualServer.tenant,
          server: call.virtualServer.name,
          callId,
          name,
          ...(args === undefined ? {} : { arguments: args }),
          protocolVersion: call.protocolVersion,
          clientCapabilities: call.clientCapabilities,
          ...(session === undefined ? {} : { sessionId: session.id }),
          ...(stream === undefined
            ? {}
            : { stream: { key: stream.key, requestId: call.requestId, ...(stream.primeAfterMs === undefined ? {} : { primeAfterMs: stream.primeAfterMs }) } }),
          ...(call.inputResponses === undefined || Object.keys(call.inputResponses).length === 0 ? {} : { inputResponses: call.inputResponses }),
          ...(call.continuation === undefined ? {} : { continuation: call.continuation }),
          ...(call.tasks === 'by-server' ? { taskMode: 'offer' as const } : {}),
          // SEP-2243: only the stateless wire mirrors arguments into headers; the executor checks them (S-116).
          ...(call.paramHeaders === undefined ? {} : { paramHeaders: call.paramHeaders }),
          notify: {
            route: this.calls.route,
            ...(progressToken === undefined ? {} : { progressToken }),
            ...(call.logLevel === undefined ? {} : { logLevel: call.logLevel }),
          },
        },
        { signal: abort.signal, context: { principal: call.principal } },
      );
      if (toolExecutor.isCallInputRequired(value)) return inputRequired(value.inputRequired);
      if (toolExecutor.isCallRunAsTask(value)) return await this.runAsTask(call, name, args, value);
      return result(value as Record<string, unknown>);
    } catch (error) {
      if (abort.signal.reason === EXECUTOR_LOST) {
        // Should the executor live after all (cut off, not dead), the call stops there too.
        this.bus.emit(toolExecutor.callCancelled, { callId, reason: 'the broker stopped hearing of the call' });
        if (stream !== undefined) await this.logLost(stream.key, call);
        return this.toFailure(call, 'tools/call', EXECUTOR_LOST);
      }
      // spec S-256: a cancelled request gets no response.
      if (isRpcError(error) && error.code === WireErrorCode.Cancelled) return { kind: 'none' };
      return this.toFailure(call, 'tools/call', error);
    } finally {
      clearTimeout(priming);
      this.calls.close(callId);
    }
  }

  /**
   * Ends the stream log of a call whose executor died with the outcome it never wrote: a client that
   * resumed the call's stream on another replica (following the log, S-90) gets the same error as this
   * replica's response, rather than waiting on a log nobody writes any more. Best effort: a failed write is logged.
   */
  private async logLost(key: string, call: MethodCall): Promise<void> {
    const entry: sessionBroker.CallOutcomeEntry = { requestId: call.requestId, outcome: { error: toWireError(toolExecutor.callTool.subject, EXECUTOR_LOST) } };
    try {
      const last = (await this.eventLog.lastPosition(key)) ?? 0;
      await this.eventLog.append(key, last + 1, JSON.stringify(entry));
    } catch (error) {
      this.logger.warn(`could not end the stream log of a call whose executor was lost: ${(error as Error).message}`);
    }
  }

  /**
   * The executor said the call runs as a task: it is created, with what the tool asked before its task
   * (issue 14 §2.4, answered by this retry) and the upstream server's task it follows (issue 15 §4).
   */
  private async runAsTask(call: MethodCall, name: string, args: CallToolParams['arguments'], value: toolExecutor.CallRunAsTask): Promise<MethodOutcome> {
    const created = await this.tasks.create(call, {
      name,
      ...(args === undefined ? {} : { arguments: args }),
      ...(value.inputResponses === undefined ? {} : { inputResponses: value.inputResponses }),
      ...(value.upstreamTask === undefined ? {} : { upstreamTask: value.upstreamTask }),
    });
    if (value.upstreamTask !== undefined && created.kind !== 'task') this.abandonUpstreamTask(call, name, value.upstreamTask, created);
    return created;
  }

  /**
   * Issue 15 §4: the upstream server created a task for the call, and no platform task follows it: the
   * executor is told to cancel it rather than leave it running unseen.
   */
  private abandonUpstreamTask(call: MethodCall, name: string, upstreamTask: UpstreamTask, outcome: MethodOutcome): void {
    const reason = outcome.kind === 'error' ? `the platform task was not created: ${outcome.error.message}` : 'the platform task was not created';
    this.logger.warn(`tools/call ${call.virtualServer.tenant}/${name}: ${reason}; cancelling the upstream's task ${upstreamTask.taskId}`);
    this.bus.emit(toolExecutor.upstreamTaskAbandoned, {
      tenant: call.virtualServer.tenant,
      server: call.virtualServer.name,
      name,
      upstreamTask,
      reason: reason.slice(0, 1024),
    });
  }

  /**
   * A failure from the executor as the client sees it. `INSUFFICIENT_SCOPE` travels as HTTP 403 with
   * a step-up challenge naming every scope the operation needs (S-142, S-143) while the response is
   * still plain JSON; once it streams, the JSON-RPC error alone goes out on the stream.
   */
  private toFailure(call: MethodCall, method: string, error: unknown): MethodOutcome {
    const outcome = platformFailure(this.logger, this.ids, method, error);
    if (outcome.kind === 'error' && isRpcError(error) && error.code === WireErrorCode.InsufficientScope) {
      const challenge = this.authenticator.insufficientScope(call.virtualServer, requiredScopes(error.data));
      this.logger.log(`${method} on ${call.virtualServer.tenant}/${call.virtualServer.name}: insufficient scope for ${call.principal.subject}`);
      return failure(outcome.error, challenge.status, challenge.headers);
    }
    return outcome;
  }
}
