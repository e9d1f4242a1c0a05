import { Controller, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { sessionBroker, toolExecutor, WireErrorCode, type EventPayload, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { EventHandler, MessageBus, MessagingModule, microserviceOptions, RpcError, RpcHandler, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { configureSessionBrokerHttp, SessionBrokerModule, type SessionBrokerOptions } from '../src';

/** What the fake executor saw, for assertions. */
export class ExecutorLog {
  readonly cancelled: string[] = [];
  readonly calls: Array<RpcRequestParsed<typeof toolExecutor.callTool>> = [];
  private readonly waiters = new Map<string, () => void>();

  waitForCancel(callId: string): Promise<void> {
    if (this.cancelled.includes(callId)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(callId, resolve));
  }

  cancel(callId: string): void {
    this.cancelled.push(callId);
    this.waiters.get(callId)?.();
    this.waiters.delete(callId);
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const TOOLS = [
  { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } },
  { name: 'chatty', description: 'Reports progress and logs while it works', inputSchema: { type: 'object' as const } },
  { name: 'wait_for_cancel', description: 'Runs until cancelled', inputSchema: { type: 'object' as const } },
  { name: 'crash', description: 'Fails inside the service', inputSchema: { type: 'object' as const } },
];

/**
 * A stand-in for the tool executor, serving the contracts the broker uses: virtual server `demo/default`,
 * four tools, notifications sent through `callNotified` on the caller's route (flushed before the reply).
 */
export function fakeExecutorController(log: ExecutorLog) {
  @Controller()
  class FakeToolExecutorController {
    constructor(private readonly bus: MessageBus) {}

    @RpcHandler(toolExecutor.getVirtualServer)
    getVirtualServer(request: { tenant: string; server: string }) {
      if (request.tenant === 'demo' && request.server === 'default') {
        return { tenant: 'demo', name: 'default', title: 'Demo', instructions: 'Use the echo tool.', public: true };
      }
      throw new RpcError(WireErrorCode.NotFound, 'no such virtual server');
    }

    @RpcHandler(toolExecutor.listVirtualServers)
    listVirtualServers() {
      return { servers: [{ tenant: 'demo', name: 'default', public: true }] };
    }

    @RpcHandler(toolExecutor.listTools)
    listTools() {
      return { tools: TOOLS, ttlMs: 30_000, cacheScope: 'public' as const };
    }

    @RpcHandler(toolExecutor.callTool)
    async callTool(request: RpcRequestParsed<typeof toolExecutor.callTool>) {
      log.calls.push(request);
      switch (request.name) {
        case 'echo':
          return { content: [{ type: 'text' as const, text: String(request.arguments?.['text'] ?? '') }] };
        case 'chatty': {
          const notify = request.notify;
          for (const step of [0, 50, 100]) {
            if (notify?.progress) this.send(request.callId, notify.route, { method: 'notifications/progress', params: { progress: step, total: 100 } });
            if (notify?.logLevel) {
              this.send(request.callId, notify.route, { method: 'notifications/message', params: { level: 'info', logger: 'chatty', data: `step ${step}` } });
            }
            await this.bus.flush();
            await delay(20);
          }
          return { content: [{ type: 'text' as const, text: 'done' }] };
        }
        case 'wait_for_cancel':
          await log.waitForCancel(request.callId);
          throw new RpcError(WireErrorCode.Cancelled, 'cancelled');
        case 'crash':
          throw new RpcError(WireErrorCode.Internal, 'internal error (id err-42)', undefined, 'err-42');
        default:
          throw new RpcError(WireErrorCode.InvalidParams, `Unknown tool: ${request.name}`);
      }
    }

    @EventHandler(toolExecutor.callCancelled)
    callCancelled(payload: EventPayload<typeof toolExecutor.callCancelled>) {
      log.cancel(payload.callId);
    }

    private send(callId: string, route: string, notification: EventPayload<typeof sessionBroker.callNotified>['notification']): void {
      this.bus.emit(sessionBroker.callNotified, { callId, notification }, { route });
    }
  }
  return FakeToolExecutorController;
}

export interface BootedBroker {
  app: NestFastifyApplication;
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The MCP URL of `demo/default`. */
  mcpUrl: string;
  close(): Promise<void>;
}

export const testBrokerOptions = (overrides: Partial<SessionBrokerOptions> = {}): SessionBrokerOptions => ({
  publicUrl: 'http://127.0.0.1:0',
  allowedHosts: ['127.0.0.1:*', 'localhost:*'],
  allowedOrigins: ['http://127.0.0.1:*', 'http://localhost:*'],
  bodyLimitBytes: 64 * 1024,
  announceVirtualServers: false,
  ...overrides,
});

/** Boots one broker replica (optionally with the fake executor in the same app) on 127.0.0.1, port 0. */
export async function bootBroker(messaging: MessagingOptions, options: { executor?: ExecutorLog; broker?: Partial<SessionBrokerOptions> } = {}): Promise<BootedBroker> {
  const brokerOptions = testBrokerOptions(options.broker);
  const root: DynamicModule = {
    module: class TestRootModule {},
    imports: [MessagingModule.forRoot(messaging), SessionBrokerModule.register(brokerOptions)],
    controllers: options.executor ? [fakeExecutorController(options.executor)] : [],
  };
  Module({})(root.module);
  const app = await NestFactory.create<NestFastifyApplication>(root, new FastifyAdapter(), { logger: false });
  configureSessionBrokerHttp(app, brokerOptions);
  app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return { app, url, mcpUrl: `${url}/demo/default/mcp`, close: () => app.close() };
}
