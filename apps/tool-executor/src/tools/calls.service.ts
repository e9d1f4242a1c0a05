import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type EventPayload, type Principal, type RpcRequestParsed, type RpcResponse, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import {
  type CallToolResult,
  CallToolResultSchema,
  checkParamHeaders,
  eraOfVersion,
  JSONRPC_VERSION,
  TASKS_EXTENSION_CAPABILITY,
} from '@mcp-platform/protocol-mcp';
import { Clock } from '@mcp-platform/shared-clock';
import { EventLog, MessageBus, RpcError, toWireError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { drainUntil, type OnDrain } from '@mcp-platform/shared-observability';
import { CatalogService, type PreparedTool } from '../catalog/catalog.service';
import { composeArguments } from '../catalog/composition';
import { HttpToolRunner } from '../http-tools/http-tool.runner';
import { UpstreamToolRunner } from '../upstreams/upstream-tool.runner';
import { CallNotifier } from './call-notifier';
import { type CallOutcome, CallOutput, type CallSink } from './call-output';
import {
  type ClientChannel,
  InputRequired,
  missingCapability,
  PendingClientRequests,
  requiredCapabilities,
  RoundTripClient,
  SessionClientRequests,
  UnreachableClient,
} from './client-requests';
import { assertMayCall, assertTenantAccess } from './tool-access';
import { AsksClient, type ClientRequests, RunsAsTask, TaskRequired, type ToolArguments, type ToolContext, ToolProtocolFailure } from './tool-context';

type CallRequest = RpcRequestParsed<typeof toolExecutor.callTool>;
/** Which tool a request names. */
type ToolAddress = Pick<CallRequest, 'tenant' | 'server' | 'name'>;
/**
 * A call's answer: the tool's result, or (modern era) the requests its client must answer first, or (a
 * call offered as a task, of a tool that allows tasks) that it should run as a task instead.
 */
export type CallAnswer = CallToolResult | toolExecutor.CallInputRequired | toolExecutor.CallRunAsTask;

/** Which notifications a call's caller asked for: progress with its token, logs at or above a level. */
type NotifyFilter = Pick<toolExecutor.CallNotify, 'progressToken' | 'logLevel'>;

/**
 * How a task's run reaches its client: through the worker's sink (legacy: not a call's stream), with the
 * notifications the task's creator asked for; and where its tool's progress goes besides (the task's
 * status message, which pollers of `tasks/get` read).
 */
export interface TaskDelivery {
  sink?: CallSink;
  notify?: NotifyFilter;
  onProgress?: (progress: number, total?: number, message?: string) => void;
}

/** Why a running call was stopped from outside: its caller cancelled it, its tool timed out, or the executor stops. */
class CallStopped extends Error {
  constructor(
    readonly kind: 'cancelled' | 'timeout' | 'shutdown',
    message: string,
  ) {
    super(message);
    this.name = 'CallStopped';
  }
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** After the calls still running at the end of the shutdown grace were stopped: how long their error answers get to leave. */
const SHUTDOWN_ANSWER_MS = 2_000;

/** A call running on this replica: how to stop it, and (legacy era) its session and its client. */
interface RunningCall {
  controller: AbortController;
  /** A task's run (the task worker's): at shutdown the work queue gives it to another worker, so the drain leaves it alone. */
  forTask: boolean;
  sessionId?: string;
  client?: ClientRequests;
  /** The broker replica waiting for the answer (a call from the bus): it hears every heartbeat that the call still runs. */
  route?: string;
}

/**
 * Runs tools/call against the catalog snapshot: resolves the tool, validates arguments and output,
 * enforces the tool's timeout, honours cancellation, and relays progress and logs to the caller.
 *
 * At shutdown it drains: the calls in flight (not task runs) get the grace to finish; the ones still
 * running then stop, answered `UNAVAILABLE` (their stream's log records it too), so their clients get an
 * error rather than a wait for their own timeout. No new call arrives meanwhile on NATS (the app's
 * request handlers stop taking requests at the start of the drain).
 */
@Injectable()
export class CallsService implements OnDrain, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CallsService.name);
  private readonly running = new Map<string, RunningCall>();
  /** Calls from the bus (not task runs) between their request and their answer. */
  private answering = 0;
  /** Requests running calls sent their clients, waiting for the answers. */
  private readonly clientRequests = new PendingClientRequests();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly catalog: CatalogService,
    private readonly http: HttpToolRunner,
    private readonly upstream: UpstreamToolRunner,
    private readonly bus: MessageBus,
    private readonly eventLog: EventLog,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs one call for `principal` (from the caller's headers): its tenant must be the request's and
   * its scopes must cover the tool's. `deadline` (epoch ms, from the caller's headers) shortens the
   * tool's own timeout: nobody waits for an answer after it, so the work stops there. A modern call
   * whose tool asked its client something `inputResponses` does not answer ends with those requests
   * (`{ inputRequired }`) instead of a result, whatever the tool made of the refusal. `taskMode` decides
   * whether a tool that allows or requires tasks runs (S-197): absent, a tool requiring tasks is
   * `UNSUPPORTED`; `offer`, a tool allowing them answers `{ runAsTask: true }` without running; `task`
   * (a task's run), any tool runs.
   */
  async call(request: CallRequest, principal: Principal | undefined, deadline?: number, task?: TaskDelivery): Promise<CallAnswer> {
    if (task === undefined) this.answering += 1;
    try {
      return await this.answer(request, principal, deadline, task);
    } finally {
      if (task === undefined) this.answering -= 1;
    }
  }

  onModuleInit(): void {
    this.heartbeat = setInterval(() => this.beat(), sessionBroker.CALL_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.heartbeat);
  }

  /**
   * Tells each broker replica which of its calls still run here (`callsAlive`): a broker that stops
   * hearing of a call knows its executor died and tells the client, rather than waiting for a reply
   * that will never come.
   */
  beat(): void {
    const byRoute = new Map<string, string[]>();
    for (const [callId, call] of this.running) {
      if (call.route !== undefined) byRoute.set(call.route, [...(byRoute.get(call.route) ?? []), callId]);
    }
    for (const [route, callIds] of byRoute) this.bus.emit(sessionBroker.callsAlive, { callIds }, { route });
  }

  /**
   * The process stops: the bus's calls in flight get until `deadline`; those still running then stop
   * with `UNAVAILABLE` (the client is told to retry), and their answers get a moment to leave.
   */
  async onDrain(deadline: number): Promise<void> {
    const idle = (): boolean => this.answering === 0;
    if (await drainUntil(deadline, idle)) return;
    this.logger.warn(`${this.answering} call(s) still running after the shutdown grace: stopping them`);
    for (const call of this.running.values()) {
      if (!call.forTask) call.controller.abort(new CallStopped('shutdown', 'The tool executor stopped before the call finished; call the tool again'));
    }
    await drainUntil(Date.now() + SHUTDOWN_ANSWER_MS, idle);
  }

  private async answer(
    request: CallRequest,
    principal: Principal | undefined,
    deadline: number | undefined,
    task: TaskDelivery | undefined,
  ): Promise<CallAnswer> {
    const output =
      task?.sink ??
      new CallOutput(
        request.callId,
        request.notify?.route,
        this.bus,
        request.stream === undefined ? undefined : { eventLog: this.eventLog, stream: request.stream },
      );
    let outcome: CallOutcome | undefined;
    try {
      const answer = await this.run(request, principal, deadline, output, task ?? { ...(request.notify === undefined ? {} : { notify: request.notify }) });
      if (!toolExecutor.isCallInputRequired(answer) && !toolExecutor.isCallRunAsTask(answer)) outcome = { result: answer };
      return answer;
    } catch (error) {
      // The same error, and error id, in the log as in the reply.
      const failure = toWireError(toolExecutor.callTool.subject, error);
      outcome = { error: failure };
      throw RpcError.fromWire(failure);
    } finally {
      // A legacy call's stream ends with its outcome, in the log before the reply leaves (a modern call has no log).
      if (outcome) await output.end(outcome);
      // Messages and the reply leave on different connections; flushing first keeps them in order at
      // the broker, so the last progress, log or request never arrives after the result.
      if (output.sent) await this.bus.flush();
    }
  }

  /**
   * `describeToolCall`: what the task scheduler needs before it creates a task for a call, after the
   * same checks as a call (tenant, server, tool, scopes): whether the tool allows tasks, and whether
   * running it twice is harmless (only an explicit `idempotentHint: true` says so; the hint defaults to false, S-192).
   */
  describe(request: ToolAddress, principal: Principal | undefined): RpcResponse<typeof toolExecutor.describeToolCall> {
    const tool = this.callableTool(request, principal);
    return { taskSupport: tool.record.taskSupport, idempotent: tool.record.annotations?.['idempotentHint'] === true };
  }

  /**
   * The tool a request names, once the caller may call it: a principal of the request's tenant, a known
   * server, a tool it exposes, and the scopes the tool requires.
   */
  private callableTool(request: ToolAddress, principal: Principal | undefined): PreparedTool {
    const caller = assertTenantAccess(principal, request.tenant);
    const server = this.catalog.getServer(request.tenant, request.server);
    if (!server) throw new RpcError(WireErrorCode.NotFound, `Unknown virtual server: ${request.tenant}/${request.server}`);
    const tool = server.byName.get(request.name);
    // Issue 15 §5: an upstream tool held back (changed upstream, or no longer listed) is refused saying why.
    const held = server.held.get(request.name);
    if (!tool && held !== undefined) throw new RpcError(WireErrorCode.InvalidParams, `Tool ${request.name} is unavailable: ${held}`);
    // spec S-188: an unknown (or disabled, or not exposed) tool is a protocol error, -32602 at the edge.
    if (!tool) throw new RpcError(WireErrorCode.InvalidParams, `Unknown tool: ${request.name}`);
    // spec S-142: a tool the caller may not use yet answers with the scopes to step up to; it does not run.
    assertMayCall(caller, tool);
    return tool;
  }

  private async run(
    request: CallRequest,
    principal: Principal | undefined,
    deadline: number | undefined,
    output: CallSink,
    delivery: TaskDelivery,
  ): Promise<CallAnswer> {
    const tool = this.callableTool(request, principal);
    // Composition: the server sets some arguments (the client may not) and fills in the defaults it omits.
    const composed = composeArguments(tool, request.arguments ?? {});
    if (!composed.ok)
      throw new RpcError(WireErrorCode.InvalidParams, `Invalid arguments for tool ${request.name}: ${composed.message}`, { argument: composed.argument });
    if (request.paramHeaders !== undefined) {
      // spec S-116: on the stateless wire the mirrored headers must agree with the arguments (-32020 at the edge).
      const check = checkParamHeaders(tool.paramHeaders, request.arguments ?? {}, request.paramHeaders);
      if (!check.ok) throw new RpcError(WireErrorCode.HeaderMismatch, check.message);
    }
    if (request.taskMode === undefined && tool.record.taskSupport === 'required') throw taskRequiredError(request);
    const args: ToolArguments = composed.arguments;
    const invalid = tool.input.validate(args);
    // spec S-188: invalid arguments are a tool error the model can correct, not a protocol error.
    if (invalid) return errorResult(`Invalid arguments for tool ${request.name}: ${invalid}`);
    // spec S-296: the server decides; a tool that allows tasks runs as one when the caller offered it
    // (arguments checked first, so a call that could only fail needs no task).
    // An upstream tool's offer runs: its upstream may decide (issue 15 §4), else its runner answers RunsAsTask.
    const offered = request.taskMode === 'offer' && tool.record.taskSupport !== 'forbidden';
    if (offered && tool.runner.kind !== 'upstream') return this.taskOffer(tool, request);
    if (this.running.has(request.callId)) throw new RpcError(WireErrorCode.InvalidRequest, `Call ${request.callId} is already running`);

    const controller = new AbortController();
    const runningCall: RunningCall = {
      controller,
      forTask: request.taskMode === 'task',
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      ...(request.taskMode === 'task' || request.notify === undefined ? {} : { route: request.notify.route }),
    };
    this.running.set(request.callId, runningCall);
    const notifier = new CallNotifier(delivery.notify, output, delivery.onProgress);
    const timeoutMs = deadline === undefined ? tool.record.timeoutMs : Math.max(0, Math.min(tool.record.timeoutMs, deadline - this.clock.now()));
    const cancelTimer = this.clock.schedule(timeoutMs, () =>
      controller.abort(new CallStopped('timeout', `Tool ${request.name} timed out after ${timeoutMs} ms`)),
    );
    const client = this.clientOf(request, controller.signal, output);
    runningCall.client = client;
    try {
      const task = offered
        ? ({ mode: 'offer' } as const)
        : request.taskMode === 'task'
          ? { mode: 'run' as const, ...(request.upstreamTask === undefined ? {} : { upstreamTask: request.upstreamTask }) }
          : undefined;
      const result = await this.runUntilStopped(tool, args, controller.signal, notifier, {
        client,
        output,
        ...(task ? { task } : {}),
        ...(request.continuation === undefined ? {} : { continuation: request.continuation }),
      });
      const malformed = malformedAnswerOf(client);
      if (malformed) throw malformed;
      const answer = this.inputRequiredOf(client, controller) ?? this.finish(tool, result);
      const missing = toolExecutor.isCallInputRequired(answer) || !answer.isError ? undefined : missingCapabilityOf(client, request.name);
      if (missing) throw missing;
      return answer;
    } catch (error) {
      return this.failureAnswer(error, request, controller, client);
    } finally {
      // spec S-267: no progress or log after the call completed.
      notifier.close();
      cancelTimer();
      this.running.delete(request.callId);
    }
  }

  /**
   * The answer of a run that threw (what the try block threw itself comes out again here: the checks are
   * the same, in the same order): a stop from outside, the client's malformed answer, the input still
   * needed, a missing capability, a timeout, a protocol failure (`-32603`), else an `isError` result.
   */
  private failureAnswer(error: unknown, request: CallRequest, controller: AbortController, client: ClientRequests): CallAnswer {
    // Issue 15 §4: an upstream tool whose call became a task (the upstream's, or the platform's), or that only runs as one.
    if (error instanceof RunsAsTask && request.taskMode === 'offer')
      return { runAsTask: true, ...(error.upstreamTask === undefined ? {} : { upstreamTask: error.upstreamTask }) };
    if (error instanceof TaskRequired && request.taskMode !== 'task') throw taskRequiredError(request);
    if (error instanceof AsksClient && eraOfVersion(request.protocolVersion) === 'modern') return roundOf(error, request);
    const stopped = error instanceof CallStopped ? error : controller.signal.reason instanceof CallStopped ? controller.signal.reason : undefined;
    if (stopped?.kind === 'cancelled') throw new RpcError(WireErrorCode.Cancelled, stopped.message);
    if (stopped?.kind === 'shutdown') throw new RpcError(WireErrorCode.Unavailable, stopped.message);
    const malformed = malformedAnswerOf(client);
    if (malformed) throw malformed;
    const inputRequired = this.inputRequiredOf(client, controller);
    if (inputRequired) return inputRequired;
    const missing = missingCapabilityOf(client, request.name);
    if (missing) throw missing;
    if (stopped?.kind === 'timeout') return errorResult(stopped.message);
    const message = (error as Error)?.message ?? String(error);
    this.logger.warn(`tool ${request.tenant}/${request.name} failed: ${message}`);
    // SEP-2663: a protocol-level failure is a JSON-RPC error (a task ends `failed`), not a tool error.
    if (error instanceof ToolProtocolFailure) throw new RpcError(WireErrorCode.Internal, `Tool ${request.name} failed: ${message}`);
    return errorResult(`Tool ${request.name} failed: ${message}`);
  }

  /**
   * A modern call offered as a task, of a tool that allows tasks (S-296): the task is created, unless the
   * tool asks something before it (`beforeTask`, issue 14 §2.4): then the call answers `input_required`
   * with those requests (with a sealed `requestState`, as any round) until the retry answers them all,
   * and the task is created with the answers. The answers are validated like a run's (S-68: a malformed
   * one is `-32602`); a capability the request did not declare is `-32021` (S-38).
   */
  private async taskOffer(tool: PreparedTool, request: CallRequest): Promise<CallAnswer> {
    const questions = tool.runner.kind === 'builtin' ? (tool.runner.beforeTask ?? []) : [];
    if (questions.length === 0) return { runAsTask: true };
    const answers = request.inputResponses ?? {};
    const client = new RoundTripClient(request.clientCapabilities ?? {}, answers);
    await Promise.allSettled(questions.map((question) => client.elicit(question.elicit, { inputKey: question.inputKey })));
    const malformed = malformedAnswerOf(client);
    if (malformed) throw malformed;
    const missing = missingCapabilityOf(client, request.name);
    if (missing) throw missing;
    const inputRequests = client.inputRequests();
    if (inputRequests) return { inputRequired: { inputRequests } };
    return { runAsTask: true, inputResponses: Object.fromEntries(questions.map((question) => [question.inputKey, answers[question.inputKey]])) };
  }

  /** Stops a running call; unknown or finished calls are ignored (S-257). */
  cancel(callId: string, reason?: string): void {
    const controller = this.running.get(callId)?.controller;
    if (!controller) return;
    // spec S-263: log cancellation reasons.
    this.logger.log(`call ${callId} cancelled${reason ? `: ${reason}` : ''}`);
    controller.abort(new CallStopped('cancelled', `Call cancelled${reason ? `: ${reason}` : ''}`));
  }

  /** The client's answer to a request a running call sent it; calls of other replicas are ignored. */
  answerClientRequest(answer: EventPayload<typeof toolExecutor.callInputAnswered>): void {
    this.clientRequests.answer(answer);
  }

  /**
   * A legacy session's client said its roots changed (S-342): the listeners of that session's calls
   * running here hear it (each call's client decides whether it listens at all); other sessions' calls
   * and modern calls never do.
   */
  rootsChanged(sessionId: string): void {
    for (const call of this.running.values()) {
      if (call.sessionId === sessionId && call.client instanceof SessionClientRequests) call.client.rootsChanged();
    }
  }

  /**
   * How the call reaches its client: modern calls through multi round-trip results (the requests end
   * the round, the answers come with the retry); legacy calls send requests (and elicitation
   * completions) on the call's own stream, logged when it is resumable (the answer comes back as
   * `callInputAnswered` from whichever broker replica the client POSTed it to).
   */
  private clientOf(request: CallRequest, signal: AbortSignal, output: CallSink): ClientRequests {
    const capabilities = request.clientCapabilities ?? {};
    if (eraOfVersion(request.protocolVersion) === 'modern') return new RoundTripClient(capabilities, request.inputResponses ?? {});
    if (request.sessionId === undefined || !output.reachesClient) return new UnreachableClient(capabilities);
    const channel: ClientChannel = {
      request: ({ inputId, method, params }) => output.send({ jsonrpc: JSONRPC_VERSION, id: inputId, method, ...(params === undefined ? {} : { params }) }),
      // spec S-327: on the call's stream, where the elicitation went.
      elicitationCompleted: (elicitationId) =>
        output.send({ jsonrpc: JSONRPC_VERSION, method: 'notifications/elicitation/complete', params: { elicitationId } }),
      settled: (inputId) => output.settled(inputId),
      alsoAnsweredBy: (sessionId) => output.alsoAnsweredBy(sessionId),
    };
    return new SessionClientRequests(request.callId, request.sessionId, capabilities, channel, this.clientRequests, signal);
  }

  /**
   * The call's answer when its run asked the client something not yet answered: the requests, and
   * the run's signal aborted so whatever the tool still does stops.
   */
  private inputRequiredOf(client: ClientRequests, controller: AbortController): toolExecutor.CallInputRequired | undefined {
    const inputRequests = client instanceof RoundTripClient ? client.inputRequests() : undefined;
    if (!inputRequests) return undefined;
    controller.abort(new InputRequired(Object.keys(inputRequests)[0] ?? ''));
    return { inputRequired: { inputRequests } };
  }

  /** Resolves with the tool's result, or rejects as soon as the signal aborts even if the tool ignores it. */
  private runUntilStopped(
    tool: PreparedTool,
    args: ToolArguments,
    signal: AbortSignal,
    notifier: CallNotifier,
    {
      client,
      output,
      task,
      continuation,
    }: { client: ClientRequests; output: CallSink; task?: ToolContext['task']; continuation?: ToolContext['continuation'] },
  ): Promise<CallToolResult> {
    const context: ToolContext = {
      ...(task ? { task } : {}),
      ...(continuation ? { continuation } : {}),
      signal,
      clock: this.clock,
      progress: (progress, total, message) => void notifier.progress(progress, total, message),
      log: (level, data, logger) => void notifier.log(level, data, logger),
      ...(notifier.logLevel === undefined ? {} : { logLevel: notifier.logLevel }),
      client,
      closeConnection: () => output.disconnect(),
    };
    const running = this.start(tool, args, context);
    return new Promise<CallToolResult>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      running.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Starts the tool by its kind: a built-in implementation, an HTTP endpoint, or an upstream MCP server's tool. */
  private start(tool: PreparedTool, args: ToolArguments, context: ToolContext): Promise<CallToolResult> {
    switch (tool.runner.kind) {
      case 'builtin':
        return tool.runner.implementation(args, context);
      case 'http':
        return this.http.run(tool.record, tool.runner.config, args, context.signal);
      case 'upstream':
        return this.upstream.run(tool.record, tool.runner.config, args, context);
    }
  }

  /** Checks the tool's answer: a well-formed result, structured content matching outputSchema, a text twin. */
  private finish(tool: PreparedTool, raw: CallToolResult): CallToolResult {
    const parsed = CallToolResultSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`tool ${tool.record.tenant}/${tool.record.name} returned a malformed result: ${parsed.error.message}`);
      return errorResult(`Tool ${tool.wire.name} returned a malformed result`);
    }
    const result = parsed.data;
    if (result.isError) return result;
    if (tool.output) {
      // spec S-184: with an outputSchema, structuredContent must be present and conform.
      if (result.structuredContent === undefined)
        return errorResult(`Tool ${tool.wire.name} returned no structuredContent although it declares an outputSchema`);
      const invalid = tool.output.validate(result.structuredContent);
      if (invalid) return errorResult(`Tool ${tool.wire.name} returned structuredContent that does not match its outputSchema: ${invalid}`);
    }
    if (result.structuredContent !== undefined && !result.content.some((block) => block.type === 'text')) {
      // spec S-187: older clients read the JSON text block.
      return { ...result, content: [...result.content, { type: 'text', text: JSON.stringify(result.structuredContent) }] };
    }
    return result;
  }
}

/**
 * A plain call of a tool that only runs as a task: spec S-295, a 2026-07-28 request names the tasks
 * extension it lacks (-32021); S-197 (MUST), a 2025-11-25 session's plain call does not run either (-32601).
 */
function taskRequiredError(request: CallRequest): RpcError {
  if (eraOfVersion(request.protocolVersion) === 'modern') {
    return new RpcError(WireErrorCode.MissingClientCapability, `Tool ${request.name} can only run as a task: declare the tasks extension`, {
      requiredCapabilities: TASKS_EXTENSION_CAPABILITY,
    });
  }
  return new RpcError(WireErrorCode.Unsupported, `Tool ${request.name} can only run as a task`);
}

/**
 * spec S-38: a modern call whose tool failed after asking its client for what the client did not
 * declare on the request (nothing was sent) is `-32021` naming the missing capabilities, whatever
 * the tool made of the refusal; a tool that managed without them answers as it did. Legacy calls keep
 * the tool's error result (the 2025 era has no such error).
 */
function missingCapabilityOf(client: ClientRequests, tool: string): RpcError | undefined {
  const missing = client instanceof RoundTripClient ? client.missingCapabilities() : undefined;
  if (!missing) return undefined;
  return new RpcError(
    WireErrorCode.MissingClientCapability,
    `Tool ${tool} needs client capabilities this request did not declare: ${Object.keys(missing).join(', ')}`,
    {
      requiredCapabilities: missing,
    },
  );
}

/**
 * The answer of a modern call whose tool worded its round's input requests itself ({@link AsksClient}):
 * those requests and the continuation, once the client declared everything they ask (S-38: else `-32021`
 * naming what is missing, and nothing is asked).
 */
function roundOf(asking: AsksClient, request: CallRequest): toolExecutor.CallInputRequired {
  const capabilities = request.clientCapabilities ?? {};
  const missing = Object.values(asking.inputRequests).flatMap((asked) => missingCapability(capabilities, asked.method, asked.params) ?? []);
  if (missing.length > 0) {
    const required = requiredCapabilities(missing);
    throw new RpcError(
      WireErrorCode.MissingClientCapability,
      `Tool ${request.name} needs client capabilities this request did not declare: ${Object.keys(required).join(', ')}`,
      { requiredCapabilities: required },
    );
  }
  return {
    inputRequired: { inputRequests: { ...asking.inputRequests }, ...(asking.continuation === undefined ? {} : { continuation: { ...asking.continuation } }) },
  };
}

/**
 * spec S-68: a modern call whose `inputResponses` held an answer that is not the result its request
 * asked for (a number for an elicitation, say) is a protocol error, `-32602` naming the key, whatever
 * the tool made of it: the client sent it, the client can correct it.
 */
function malformedAnswerOf(client: ClientRequests): RpcError | undefined {
  const malformed = client instanceof RoundTripClient ? client.malformedAnswer() : undefined;
  if (!malformed) return undefined;
  return new RpcError(WireErrorCode.InvalidParams, `Invalid params: inputResponses.${malformed.key}: ${malformed.message}`, { inputKey: malformed.key });
}
