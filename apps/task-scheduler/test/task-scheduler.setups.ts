import 'reflect-metadata';
import { Controller, type INestApplication } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type Clock, SystemClock } from '@mcp-platform/shared-clock';
import {
  type CallContext,
  MemoryWorkQueue,
  type MessagingOptions,
  NATS_CONNECTION,
  RpcError,
  RpcHandler,
  WireErrorCode,
  type Worker,
} from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { bootService, type ServiceSetup, serviceSetups } from '@mcp-platform/shared-testing';
import { TaskSchedulerModule } from '../src';

/** What only the scheduler's integration suite needs beside the shared setups of `@mcp-platform/shared-testing`. */

/** A clock the test moves forward (to expire tasks) without waiting. */
export class TestClock extends SystemClock {
  offsetMs = 0;

  override now(): number {
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

/** Both setups; `run` isolates this suite's NATS subjects, streams and client names. In process, the work queue can fail on demand. */
export function setups(run: string): ServiceSetup[] {
  return serviceSetups('task-scheduler', run, { workQueue: () => new FlakyWorkQueue() });
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
export function bootScheduler(
  messaging: MessagingOptions,
  database: DatabaseOptions,
  options: { clock: Clock; tenantConcurrency: number },
): Promise<INestApplication> {
  return bootService(messaging, TaskSchedulerModule.register({ database, clock: options.clock, tenantConcurrency: options.tenantConcurrency }), {
    controllers: [FakeToolExecutorController],
  });
}

/**
 * Ends a suite: its worker, then (over NATS) the run's work stream, the app, and its throwaway database
 * whatever failed before.
 */
export async function stopScheduler(
  run: string,
  setup: ServiceSetup,
  app: INestApplication | undefined,
  worker: Worker | undefined,
  drop: (() => Promise<void>) | undefined,
): Promise<void> {
  try {
    await worker?.stop();
    if (setup.name === 'NATS + PostgreSQL' && app) {
      const jsm = await app.get<NatsConnection>(NATS_CONNECTION).jetstreamManager();
      await jsm.streams.delete(`${run}-MCP_WORK`).catch(() => false);
    }
    await app?.close();
  } finally {
    await drop?.();
  }
}
