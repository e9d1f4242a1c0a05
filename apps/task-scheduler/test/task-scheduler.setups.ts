import 'reflect-metadata';
import { Controller, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { toolExecutor, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import {
  inProcessMessaging,
  MemoryWorkQueue,
  MessagingModule,
  microserviceOptions,
  RpcError,
  RpcHandler,
  WireErrorCode,
  type CallContext,
  type MessagingOptions,
} from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type DatabaseOptions } from '@mcp-platform/shared-persistence';
import { TaskSchedulerModule } from '../src';
import { Clock } from '../src/tasks/clock';

/** The two ways the scheduler's integration suite runs it: real NATS + PostgreSQL, and in-process + PGlite. */

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** A clock the test moves forward (to expire tasks) without waiting. */
export class TestClock extends Clock {
  offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }
}

/** A memory work queue whose next enqueue can be made to fail (the queue being down). */
export class FlakyWorkQueue extends MemoryWorkQueue {
  failNext = false;

  override async enqueue(queue: string, job: { id: string; data: string }): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('work queue unavailable');
    }
    await super.enqueue(queue, job);
  }
}

export interface Setup {
  name: 'NATS + PostgreSQL' | 'in-process + PGlite';
  /** The bus of one replica; replicas of one setup share `run`'s subjects, streams and database. */
  messaging: (replica: string) => MessagingOptions;
  database: () => Promise<{ options: DatabaseOptions; drop?: () => Promise<void> }>;
}

/** Both setups; `run` isolates this suite's NATS subjects, streams and client names from every other run. */
export function setups(run: string): Setup[] {
  return [
    {
      name: 'NATS + PostgreSQL',
      messaging: (replica) => ({ transport: 'nats', servers: NATS_URL, name: `task-scheduler-test-${run}-${replica}`, bucketPrefix: `${run}-`, subjectPrefix: run }),
      database: async () => {
        const database = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'task_scheduler');
        return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
      },
    },
    {
      name: 'in-process + PGlite',
      messaging: () => ({ ...inProcessMessaging(), workQueue: new FlakyWorkQueue() }),
      database: async () => ({ options: { kind: 'pglite' } }),
    },
  ];
}

/**
 * The tool executor's side of `describeToolCall`, as the scheduler needs it: `idempotent` and `effectful`
 * allow tasks (only the first may run twice), `plain` forbids them, anything else is unknown. A principal
 * of another tenant is refused, as the real executor does.
 */
@Controller()
export class FakeToolExecutorController {
  @RpcHandler(toolExecutor.describeToolCall)
  describeToolCall(request: RpcRequestParsed<typeof toolExecutor.describeToolCall>, context: CallContext) {
    if (context.principal?.tenant !== request.tenant) throw new RpcError(WireErrorCode.Forbidden, 'wrong tenant');
    switch (request.name) {
      case 'idempotent':
        return { taskSupport: 'optional' as const, idempotent: true };
      case 'effectful':
        return { taskSupport: 'required' as const, idempotent: false };
      case 'plain':
        return { taskSupport: 'forbidden' as const, idempotent: true };
      default:
        throw new RpcError(WireErrorCode.InvalidParams, `Unknown tool: ${request.name}`);
    }
  }
}

/** The scheduler's module (with the fake executor) on the given bus and database, serving its RPCs. */
export async function bootScheduler(
  messaging: MessagingOptions,
  database: DatabaseOptions,
  options: { clock: Clock; tenantConcurrency: number },
): Promise<INestApplication> {
  @Module({
    imports: [MessagingModule.forRoot(messaging), TaskSchedulerModule.register({ database, clock: options.clock, tenantConcurrency: options.tenantConcurrency })],
    controllers: [FakeToolExecutorController],
  })
  class TestModule {}
  const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: ['error'] });
  app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}

/** The wire error a rejected request carried. */
export async function errorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}
