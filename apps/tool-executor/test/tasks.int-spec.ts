import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { Controller, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, type RpcRequestParsed, type RpcResponse, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import {
  inProcessMessaging,
  MessageBus,
  MessagingModule,
  type MessagingOptions,
  microserviceOptions,
  RpcHandler,
  WorkQueue,
} from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, type DatabaseOptions, DEFAULT_TEST_DATABASE_URL } from '@mcp-platform/shared-persistence';
import { ToolExecutorModule } from '../src';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const run = `tt${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const QUEUE = 'tool-tasks';
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';

type TaskCall = taskScheduler.TaskCall;
type Claim = RpcResponse<typeof taskScheduler.claimTask>;
type Finish = RpcRequestParsed<typeof taskScheduler.finishTask>;

/** A signed-in user of the demo tenant (what the scheduler stored as the task's owner). */
const owner: Principal = { subject: 'user-of-demo', tenant: 'demo', clientId: 'test-client', scopes: ['mcp'], anonymous: false };
const as = (principal: Principal) => ({ context: { principal } });
const newTaskId = () => randomBytes(16).toString('base64url');
const demoCall = (name: string, args: Record<string, unknown>, protocolVersion = LEGACY, clientCapabilities?: Record<string, unknown>): TaskCall => ({
  tenant: 'demo',
  server: 'default',
  name,
  arguments: args,
  protocolVersion,
  ...(clientCapabilities ? { clientCapabilities } : {}),
});

/** The scheduler's side of the queue, played by the test: what each task's claim answers, and what came back. */
class FakeScheduler {
  readonly runs = new Map<string, TaskCall>();
  /** The client's answers a task's next claim brings (modern era, after `input_required`). */
  readonly inputResponses = new Map<string, Record<string, unknown>>();
  readonly claims: Array<RpcRequestParsed<typeof taskScheduler.claimTask>> = [];
  readonly finishes: Finish[] = [];

  claim(request: RpcRequestParsed<typeof taskScheduler.claimTask>): Claim {
    this.claims.push(request);
    const call = this.runs.get(request.taskId);
    if (!call) return { action: 'skip' };
    const inputResponses = this.inputResponses.get(request.taskId);
    return { action: 'run', call, principal: owner, ...(inputResponses ? { inputResponses } : {}) };
  }

  claimsOf(taskId: string) {
    return this.claims.filter((claim) => claim.taskId === taskId);
  }

  finishesOf(taskId: string) {
    return this.finishes.filter((finish) => finish.taskId === taskId);
  }
}

function schedulerController(scheduler: FakeScheduler) {
  @Controller()
  class FakeSchedulerController {
    @RpcHandler(taskScheduler.claimTask)
    claimTask(request: RpcRequestParsed<typeof taskScheduler.claimTask>) {
      return scheduler.claim(request);
    }

    @RpcHandler(taskScheduler.finishTask)
    finishTask(request: Finish) {
      scheduler.finishes.push(request);
      return {};
    }
  }
  return FakeSchedulerController;
}

const setups: Array<{ name: string; messaging: () => MessagingOptions; database: () => Promise<{ options: DatabaseOptions; drop?: () => Promise<void> }> }> = [
  {
    name: 'NATS + PostgreSQL',
    messaging: () => ({ transport: 'nats', servers: NATS_URL, name: `tool-executor-tasks-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run }),
    database: async () => {
      const database = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'tool_executor_tasks');
      return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
    },
  },
  { name: 'in-process + PGlite', messaging: () => inProcessMessaging(), database: async () => ({ options: { kind: 'pglite' } }) },
];

describe.each(setups)('MCP tasks in the tool executor over $name', (setup) => {
  const scheduler = new FakeScheduler();
  let app: INestApplication;
  let bus: MessageBus;
  let queue: WorkQueue;
  let drop: (() => Promise<void>) | undefined;

  /** Queues a run of `call` as the scheduler does, and resolves once the worker finished it. */
  const runTask = async (call: TaskCall) => {
    const taskId = newTaskId();
    scheduler.runs.set(taskId, call);
    await queue.enqueue(QUEUE, { id: `run-${taskId}`, data: taskId });
    return taskId;
  };
  /** The task's finishes once there are `count`. */
  const finished = async (taskId: string, count = 1) => {
    await expect.poll(() => scheduler.finishesOf(taskId).length, { timeout: 10_000 }).toBe(count);
    return scheduler.finishesOf(taskId);
  };

  beforeAll(async () => {
    const messaging = setup.messaging();
    const database = await setup.database();
    drop = database.drop;
    @Module({
      imports: [
        MessagingModule.forRoot(messaging),
        ToolExecutorModule.register({
          database: database.options,
          seed: true,
          http: { allowPrivateNetworks: false },
          tasks: { concurrency: 4, maxAttempts: 3, ackWaitMs: 5_000 },
        }),
      ],
      controllers: [schedulerController(scheduler)],
    })
    class TestModule {}
    app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: ['error'] });
    app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
    await app.init();
    await app.startAllMicroservices();
    bus = app.get(MessageBus);
    queue = app.get(WorkQueue);
  });

  afterAll(async () => {
    try {
      // The worker stops with the app, before its queue's stream goes.
      await app?.close();
      if (setup.name.startsWith('NATS')) {
        // The run's JetStream streams would otherwise outlive it.
        const connection = await connect({ servers: NATS_URL });
        const jsm = await connection.jetstreamManager();
        for (const stream of [`${run}-MCP_WORK`, `${run}-MCP_EVENTS`]) await jsm.streams.delete(stream).catch(() => false);
        await connection.close();
      }
    } finally {
      await drop?.();
    }
  });

  describe('TaskWorker', () => {
    it('runs a queued task once, as its owner, and finishTask gets the result', async () => {
      const taskId = await runTask(demoCall('export_report', { seconds: 1 }));
      const finishes = await finished(taskId);
      expect(finishes).toEqual([
        {
          taskId,
          ending: { outcome: { result: { content: [{ type: 'text', text: 'Report ready: 250 rows in 1 s' }], structuredContent: { rows: 250, seconds: 1 } } } },
        },
      ]);
      expect(scheduler.claimsOf(taskId)).toEqual([{ taskId, attempt: 1, maxAttempts: 3, claimToken: expect.any(String) }]);
    });

    it("finishes with the call's error when the run cannot happen", async () => {
      const taskId = await runTask(demoCall('no_such_tool', {}));
      expect(await finished(taskId)).toEqual([
        { taskId, ending: { outcome: { error: { code: WireErrorCode.InvalidParams, message: 'Unknown tool: no_such_tool' } } } },
      ]);
    });

    it('finishes a modern task whose tool asks its client with the input requests, then with the result once the claim brings the answers', async () => {
      const call = demoCall('confirm_action', { action: 'archive the report' }, MODERN, { elicitation: {} });
      const taskId = await runTask(call);
      const [asked] = await finished(taskId);
      expect(asked?.ending).toEqual({
        inputRequests: { 'input-1': { method: 'elicitation/create', params: expect.objectContaining({ message: 'Please confirm: archive the report' }) } },
      });
      // The scheduler queues the next run once the client answered (tasks/update).
      scheduler.inputResponses.set(taskId, { 'input-1': { action: 'accept', content: { confirmed: true } } });
      await queue.enqueue(QUEUE, { id: `run-2-${taskId}`, data: taskId });
      const [, answered] = await finished(taskId, 2);
      expect(answered?.ending).toEqual({
        outcome: { result: expect.objectContaining({ structuredContent: { action: 'archive the report', response: 'accept', confirmed: true } }) },
      });
    });

    it('runs nothing for a job the scheduler says to skip', async () => {
      const taskId = newTaskId();
      await queue.enqueue(QUEUE, { id: `run-${taskId}`, data: taskId });
      await expect.poll(() => scheduler.claimsOf(taskId).length, { timeout: 10_000 }).toBe(1);
      expect(scheduler.finishesOf(taskId)).toEqual([]);
    });

    it("stops a cancelled task's run, which finishes CANCELLED", async () => {
      const taskId = await runTask(demoCall('long_operation', { seconds: 60, steps: 60 }));
      await expect.poll(() => scheduler.claimsOf(taskId).length, { timeout: 10_000 }).toBe(1);
      const now = new Date().toISOString();
      bus.emit(taskScheduler.taskStatusChanged, {
        task: { taskId, status: 'cancelled', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 1_000 },
        tenant: 'demo',
        era: 'modern',
        owner: { subject: 'alice', anonymous: false },
      });
      const [ending] = await finished(taskId);
      expect(ending?.ending).toEqual({ outcome: { error: expect.objectContaining({ code: WireErrorCode.Cancelled }) } });
    });
  });

  describe('task support on the bus', () => {
    it('refuses a plain call of export_report with UNSUPPORTED (S-197)', async () => {
      const answer = bus.request(
        toolExecutor.callTool,
        { tenant: 'demo', server: 'default', callId: randomUUID(), name: 'export_report', arguments: { seconds: 1 }, protocolVersion: LEGACY },
        as(owner),
      );
      await expect(answer).rejects.toMatchObject({ code: WireErrorCode.Unsupported, message: 'Tool export_report can only run as a task' });
    });

    it('answers runAsTask to a call offered as a task of a tool that allows tasks', async () => {
      const answer = await bus.request(
        toolExecutor.callTool,
        {
          tenant: 'demo',
          server: 'default',
          callId: randomUUID(),
          name: 'long_operation',
          arguments: { seconds: 1 },
          protocolVersion: MODERN,
          taskMode: 'offer',
        },
        as(owner),
      );
      expect(answer).toEqual({ runAsTask: true });
    });

    it("describes a tool call: its task support and whether it is idempotent, with a call's checks", async () => {
      const describeCall = (name: string, principal: Principal = owner) =>
        bus.request(toolExecutor.describeToolCall, { tenant: 'demo', server: 'default', name }, as(principal));
      await expect(describeCall('export_report')).resolves.toEqual({ taskSupport: 'required', idempotent: false });
      await expect(describeCall('long_operation')).resolves.toEqual({ taskSupport: 'optional', idempotent: true });
      await expect(describeCall('current_time')).resolves.toEqual({ taskSupport: 'forbidden', idempotent: false });
      await expect(describeCall('no_such_tool')).rejects.toMatchObject({ code: WireErrorCode.InvalidParams });
      await expect(describeCall('hash_text')).rejects.toMatchObject({ code: WireErrorCode.InsufficientScope });
      await expect(describeCall('export_report', { ...owner, tenant: 'conformance' })).rejects.toMatchObject({ code: WireErrorCode.Forbidden });
    });

    it('lists execution.taskSupport for the demo tools that allow or require tasks, and for no other', async () => {
      const page = await bus.request(toolExecutor.listTools, { tenant: 'demo', server: 'default' }, as(owner));
      const withExecution = Object.fromEntries(page.tools.filter((tool) => tool.execution !== undefined).map((tool) => [tool.name, tool.execution]));
      expect(withExecution).toEqual({ export_report: { taskSupport: 'required' }, long_operation: { taskSupport: 'optional' } });
    });
  });
});
