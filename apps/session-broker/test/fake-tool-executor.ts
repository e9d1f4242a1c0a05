import { Controller, type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  authorizationServer,
  type EventPayload,
  type Principal,
  type RpcRequestParsed,
  type RpcResponse,
  sessionBroker,
  toolExecutor,
  WireErrorCode,
} from '@mcp-platform/protocol-contracts';
import { isLevelAtLeast, JSONRPC_VERSION, missingScopes } from '@mcp-platform/protocol-mcp';
import {
  type CallContext,
  EventHandler,
  EventLog,
  isRpcError,
  MessageBus,
  MessagingModule,
  type MessagingOptions,
  microserviceOptions,
  RpcError,
  RpcHandler,
} from '@mcp-platform/shared-messaging';
import { configureSessionBrokerHttp, SessionBrokerModule, type SessionBrokerOptions } from '../src';
import { fakeResourceStoreController, ResourceStoreLog } from './fake-resource-store';
import { TEST_ISSUER, TEST_PUBLIC_URL, TestIssuer } from './test-issuer';

/** What the fake executor saw, for assertions. */
export class ExecutorLog {
  readonly cancelled: string[] = [];
  readonly calls: CallRequest[] = [];
  /** The principal of every listTools/callTool request, in order. */
  readonly principals: Array<Principal | undefined> = [];
  /** Answers to requests `ask_roots` sent its client, as the executor heard them. */
  readonly answers: Array<EventPayload<typeof toolExecutor.callInputAnswered>> = [];
  /** The sessions whose client said its roots changed, as the executor heard them. */
  readonly rootsChanged: string[] = [];
  private readonly released = new Set<string>();
  private readonly waiters = new Map<string, () => void>();
  private readonly releaseWaiters = new Map<string, () => void>();
  private readonly answerWaiters = new Map<string, { sessionId?: string; resolve(answer: EventPayload<typeof toolExecutor.callInputAnswered>): void }>();

  /** The answer to `inputId` from the call's own session (the executor ignores anyone else's). */
  waitForAnswer(inputId: string, sessionId: string | undefined): Promise<EventPayload<typeof toolExecutor.callInputAnswered>> {
    return new Promise((resolve) => this.answerWaiters.set(inputId, { ...(sessionId === undefined ? {} : { sessionId }), resolve }));
  }

  answer(answer: EventPayload<typeof toolExecutor.callInputAnswered>): void {
    this.answers.push(answer);
    const waiter = this.answerWaiters.get(answer.inputId);
    if (!waiter || waiter.sessionId !== answer.sessionId) return;
    this.answerWaiters.delete(answer.inputId);
    waiter.resolve(answer);
  }

  waitForCancel(callId: string): Promise<void> {
    if (this.cancelled.includes(callId)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(callId, resolve));
  }

  cancel(callId: string): void {
    this.cancelled.push(callId);
    this.waiters.get(callId)?.();
    this.waiters.delete(callId);
  }

  /** Resolves once the test calls `release(callId)`: a tool holds there until the test is ready. */
  waitForRelease(callId: string): Promise<void> {
    if (this.released.has(callId)) return Promise.resolve();
    return new Promise((resolve) => this.releaseWaiters.set(callId, resolve));
  }

  release(callId: string): void {
    this.released.add(callId);
    this.releaseWaiters.get(callId)?.();
    this.releaseWaiters.delete(callId);
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const TOOLS = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } },
  { name: 'chatty', description: 'Reports progress and logs while it works', inputSchema: { type: 'object' as const } },
  { name: 'wait_for_cancel', description: 'Runs until cancelled', inputSchema: { type: 'object' as const } },
  { name: 'crash', description: 'Fails inside the service', inputSchema: { type: 'object' as const } },
  { name: 'hash_text', description: 'Needs the demo:crypto scope', inputSchema: { type: 'object' as const } },
  { name: 'ask_roots', description: 'Asks its client for roots and reports the answer', inputSchema: { type: 'object' as const } },
  { name: 'roots_by_round_trip', description: 'Asks a modern client for roots by result and reports the answer', inputSchema: { type: 'object' as const } },
  {
    name: 'complete_elicitation',
    description: 'Tells its client the URL-mode elicitation `elicitationId` finished (with `held`, once the test releases the call)',
    inputSchema: { type: 'object' as const },
  },
  {
    name: 'slow_progress',
    description: 'Reports progress 1 to 3, waits until the test releases the call, then reports 4 and answers',
    inputSchema: { type: 'object' as const },
  },
];

/** The scopes `hash_text` needs, as the executor reports them (baseline plus the tool's own). */
export const HASH_TEXT_SCOPES = ['mcp', 'demo:crypto'];

/** The fake catalog: `demo/default` is public (anonymous callers), `demo/private` needs a token. */
const VIRTUAL_SERVERS = [
  { tenant: 'demo', name: 'default', title: 'Demo', instructions: 'Use the echo tool.', public: true, scopes: ['mcp'] },
  { tenant: 'demo', name: 'private', title: 'Private demo', public: false, scopes: HASH_TEXT_SCOPES },
];

type CallRequest = RpcRequestParsed<typeof toolExecutor.callTool>;
type OutgoingMessage = EventPayload<typeof sessionBroker.callMessage>['message'];

/**
 * A call's messages for its client, sent like the executor's `CallOutput` does: a call with a stream
 * (legacy) appends each message to the event log at positions 1, 2, 3… before sending it with its
 * position, and its outcome last; everything is flushed before the reply.
 */
class FakeCallOutput {
  private position = 0;

  constructor(
    private readonly request: CallRequest,
    private readonly bus: MessageBus,
    private readonly eventLog: EventLog,
  ) {}

  /** Sends one JSON-RPC message (`jsonrpc` added) to the replica holding the call's stream. */
  async send(message: Omit<OutgoingMessage, 'jsonrpc'>): Promise<void> {
    const route = this.request.notify?.route;
    if (route === undefined) return;
    const full = { jsonrpc: JSONRPC_VERSION, ...message };
    const position = await this.append({ message: full });
    this.bus.emit(sessionBroker.callMessage, { callId: this.request.callId, ...(position === undefined ? {} : { position }), message: full }, { route });
  }

  async end(outcome: sessionBroker.CallOutcomeEntry['outcome']): Promise<void> {
    const stream = this.request.stream;
    if (stream) await this.append({ requestId: stream.requestId, outcome });
    await this.bus.flush();
  }

  private async append(entry: Record<string, unknown>): Promise<number | undefined> {
    const stream = this.request.stream;
    if (!stream) return undefined;
    const position = ++this.position;
    await this.eventLog.append(stream.key, position, JSON.stringify(entry));
    return position;
  }
}

/**
 * A stand-in for the tool executor (and the authorization server's key set), serving the contracts
 * the broker uses: virtual servers `demo/default` (public) and `demo/private`, the tools in `TOOLS`,
 * messages for the client sent through `callMessage` on the caller's route (logged first when the
 * call has a stream, see `FakeCallOutput`), and `ask_roots`, which asks its client for roots and
 * answers what came back, `roots_by_round_trip`, which (modern era) answers input requests until the
 * call brings the roots, `complete_elicitation`, which sends `notifications/elicitation/complete` for
 * its `elicitationId` argument, and `slow_progress`, which holds until the test releases it.
 */
export function fakeExecutorController(log: ExecutorLog, issuer: TestIssuer) {
  @Controller()
  class FakeToolExecutorController {
    constructor(
      private readonly bus: MessageBus,
      private readonly eventLog: EventLog,
    ) {}

    @RpcHandler(toolExecutor.getVirtualServer)
    getVirtualServer(request: { tenant: string; server: string }) {
      const server = VIRTUAL_SERVERS.find((candidate) => candidate.tenant === request.tenant && candidate.name === request.server);
      if (server) return server;
      throw new RpcError(WireErrorCode.NotFound, 'no such virtual server');
    }

    @RpcHandler(toolExecutor.listVirtualServers)
    listVirtualServers() {
      return { servers: VIRTUAL_SERVERS };
    }

    @RpcHandler(authorizationServer.listSigningKeys)
    listSigningKeys() {
      return issuer.keySet();
    }

    @RpcHandler(authorizationServer.listRevocations)
    listRevocations() {
      return { revocations: issuer.revocations };
    }

    @RpcHandler(toolExecutor.listTools)
    listTools(_request: unknown, context: CallContext) {
      log.principals.push(context.principal);
      return { tools: TOOLS, ttlMs: 30_000, cacheScope: 'public' as const };
    }

    @RpcHandler(toolExecutor.callTool)
    async callTool(request: CallRequest, context: CallContext) {
      log.calls.push(request);
      log.principals.push(context.principal);
      const output = new FakeCallOutput(request, this.bus, this.eventLog);
      try {
        const answer = await this.run(request, context, output);
        if (!toolExecutor.isCallInputRequired(answer)) await output.end({ result: answer });
        return answer;
      } catch (error) {
        await output.end({ error: isRpcError(error) ? error.toWire() : { code: WireErrorCode.Internal, message: 'Internal error' } });
        throw error;
      }
    }

    @EventHandler(toolExecutor.callInputAnswered)
    callInputAnswered(payload: EventPayload<typeof toolExecutor.callInputAnswered>) {
      log.answer(payload);
    }

    @EventHandler(toolExecutor.sessionRootsChanged)
    sessionRootsChanged(payload: EventPayload<typeof toolExecutor.sessionRootsChanged>) {
      log.rootsChanged.push(payload.sessionId);
    }

    @EventHandler(toolExecutor.callCancelled)
    callCancelled(payload: EventPayload<typeof toolExecutor.callCancelled>) {
      log.cancel(payload.callId);
    }

    private async run(request: CallRequest, context: CallContext, output: FakeCallOutput): Promise<RpcResponse<typeof toolExecutor.callTool>> {
      const notify = request.notify;
      switch (request.name) {
        case 'echo':
          return { content: [{ type: 'text' as const, text: String(request.arguments?.['text'] ?? '') }] };
        case 'chatty': {
          for (const step of [0, 50, 100]) {
            if (notify?.progressToken !== undefined) {
              await output.send({ method: 'notifications/progress', params: { progressToken: notify.progressToken, progress: step, total: 100 } });
            }
            if (notify?.logLevel && isLevelAtLeast('info', notify.logLevel)) {
              await output.send({ method: 'notifications/message', params: { level: 'info', logger: 'chatty', data: `step ${step}` } });
            }
            await this.bus.flush();
            await delay(20);
          }
          return { content: [{ type: 'text' as const, text: 'done' }] };
        }
        case 'slow_progress': {
          const report = (progress: number) =>
            notify?.progressToken === undefined
              ? undefined
              : output.send({ method: 'notifications/progress', params: { progressToken: notify.progressToken, progress, total: 4 } });
          for (const step of [1, 2, 3]) await report(step);
          await this.bus.flush();
          await log.waitForRelease(request.callId);
          await report(4);
          return { content: [{ type: 'text' as const, text: 'slow done' }] };
        }
        case 'ask_roots': {
          // Like the executor: the request goes on the call's stream, the answer comes from any replica.
          const inputId = toolExecutor.clientRequestId(request.callId, 1);
          const answered = log.waitForAnswer(inputId, request.sessionId);
          await output.send({ id: inputId, method: 'roots/list' });
          const answer = await answered;
          return { content: [{ type: 'text' as const, text: JSON.stringify(answer.outcome) }] };
        }
        case 'roots_by_round_trip': {
          // Like a modern call of the executor: the answer comes with the call, or the call asks for it.
          const answer = request.inputResponses?.['input-1'];
          if (answer === undefined) return { inputRequired: { inputRequests: { 'input-1': { method: 'roots/list' as const } } } };
          return { content: [{ type: 'text' as const, text: JSON.stringify({ arguments: request.arguments ?? {}, roots: answer }) }] };
        }
        case 'complete_elicitation': {
          if (request.arguments?.['held'] === true) await log.waitForRelease(request.callId);
          const elicitationId = String(request.arguments?.['elicitationId'] ?? '');
          await output.send({ method: 'notifications/elicitation/complete', params: { elicitationId } });
          return { content: [{ type: 'text' as const, text: 'completed' }] };
        }
        case 'wait_for_cancel':
          await log.waitForCancel(request.callId);
          throw new RpcError(WireErrorCode.Cancelled, 'cancelled');
        case 'crash':
          throw new RpcError(WireErrorCode.Internal, 'internal error (id err-42)', undefined, 'err-42');
        case 'hash_text':
          if (missingScopes(context.principal?.scopes ?? [], HASH_TEXT_SCOPES).length > 0) {
            throw new RpcError(WireErrorCode.InsufficientScope, 'hash_text needs more scopes', { scopes: HASH_TEXT_SCOPES });
          }
          return { content: [{ type: 'text' as const, text: 'hashed' }] };
        default:
          throw new RpcError(WireErrorCode.InvalidParams, `Unknown tool: ${request.name}`);
      }
    }
  }
  return FakeToolExecutorController;
}

export interface BootedBroker {
  app: NestFastifyApplication;
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The MCP URL of `demo/default` (public). */
  mcpUrl: string;
  /** The MCP URL of `demo/private` (needs a token). */
  privateUrl: string;
  /** Signs the tokens the broker accepts and answers its key-set requests (when this replica runs the fake executor). */
  issuer: TestIssuer;
  close(): Promise<void>;
}

export const testBrokerOptions = (overrides: Partial<SessionBrokerOptions> = {}): SessionBrokerOptions => ({
  publicUrl: TEST_PUBLIC_URL,
  allowedHosts: ['127.0.0.1:*', 'localhost:*'],
  allowedOrigins: ['http://127.0.0.1:*', 'http://localhost:*'],
  bodyLimitBytes: 64 * 1024,
  announceVirtualServers: false,
  auth: { issuer: TEST_ISSUER },
  ...overrides,
});

/** Boots one broker replica (optionally with the fake executor in the same app) on 127.0.0.1, port 0. */
export async function bootBroker(
  messaging: MessagingOptions,
  options: { executor?: ExecutorLog; resourceStore?: ResourceStoreLog; issuer?: TestIssuer; broker?: Partial<SessionBrokerOptions> } = {},
): Promise<BootedBroker> {
  const brokerOptions = testBrokerOptions(options.broker);
  const issuer = options.issuer ?? (await TestIssuer.create());
  const root: DynamicModule = {
    module: class TestRootModule {},
    imports: [MessagingModule.forRoot(messaging), SessionBrokerModule.register(brokerOptions)],
    controllers: [
      ...(options.executor ? [fakeExecutorController(options.executor, issuer)] : []),
      ...(options.resourceStore ? [fakeResourceStoreController(options.resourceStore)] : []),
    ],
  };
  Module({})(root.module);
  // Like the apps (`runService`): closing ends every connection, also one a client opened and left unused.
  const app = await NestFactory.create<NestFastifyApplication>(root, new FastifyAdapter({ forceCloseConnections: true }), { logger: false });
  configureSessionBrokerHttp(app, brokerOptions);
  app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return { app, url, mcpUrl: `${url}/demo/default/mcp`, privateUrl: `${url}/demo/private/mcp`, issuer, close: () => app.close() };
}
