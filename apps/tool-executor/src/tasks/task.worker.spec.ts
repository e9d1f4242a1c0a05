import { describe, expect, it } from 'vitest';
import { type EventPayload, type Principal, sessionBroker, taskScheduler, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { type Clock, SequentialIds } from '@mcp-platform/shared-clock';
import { type Job, type JobOutcome, type MessageBus, RpcError, type WorkerOptions, type WorkQueue } from '@mcp-platform/shared-messaging';
import type { CallAnswer, CallsService, TaskDelivery } from '../tools/calls.service';
import { TaskWorker } from './task.worker';
import { TaskOutput } from './task-output';

const TASK_ID = 'task_0123456789abcdefABCD';
const OPTIONS = { concurrency: 4, maxAttempts: 3, ackWaitMs: 30_000 };
const owner: Principal = { subject: 'user-1', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false };
const CALL = {
  tenant: 'demo',
  server: 'default',
  name: 'export_report',
  arguments: { seconds: 2 },
  protocolVersion: '2026-07-28',
  clientCapabilities: { elicitation: {} },
};
const RUN = { action: 'run', call: CALL, principal: owner } as const;
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Records the calls the worker runs; a call answers `answer(request)`, and a hanging one fails only when cancelled. */
class FakeCalls {
  readonly runs: Array<{ request: Record<string, unknown>; principal: Principal | undefined; task?: TaskDelivery }> = [];
  readonly cancelled: string[] = [];
  answer: (request: Record<string, unknown>) => Promise<CallAnswer> = async () => text('done');
  private readonly hanging = new Map<string, (error: unknown) => void>();

  call(request: Record<string, unknown>, principal: Principal | undefined, _deadline?: number, task?: TaskDelivery): Promise<CallAnswer> {
    this.runs.push({ request, principal, ...(task === undefined ? {} : { task }) });
    return this.answer(request);
  }

  cancel(callId: string): void {
    this.cancelled.push(callId);
    this.hanging.get(callId)?.(new RpcError(WireErrorCode.Cancelled, 'Call cancelled: task cancelled'));
  }

  /** An answer that never comes unless the call is cancelled. */
  hang(request: Record<string, unknown>): Promise<CallAnswer> {
    return new Promise((_resolve, reject) => this.hanging.set(String(request['callId']), reject));
  }
}

function setup(scheduler: { claim?: (payload: unknown) => Promise<unknown>; finish?: (payload: unknown, attempt: number) => Promise<unknown> } = {}) {
  const claims: unknown[] = [];
  const finishes: unknown[] = [];
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const handlers = new Map<string, (payload: unknown) => void>();
  const bus = {
    emit: (contract: { subject: string }, payload: unknown) => void emitted.push({ subject: contract.subject, payload }),
    /** The test's own handler of a subject the worker sends besides claims and finishes. */
    onRequest: (subject: string, handler: (payload: unknown) => void) => void handlers.set(subject, handler),
    request: async (contract: { subject: string }, payload: unknown) => {
      if (contract.subject === taskScheduler.reportTaskInput.subject || contract.subject === taskScheduler.reportTaskProgress.subject) {
        handlers.get(contract.subject)?.(payload);
        return {};
      }
      if (contract.subject === taskScheduler.claimTask.subject) {
        claims.push(payload);
        return (scheduler.claim ?? (async () => RUN))(payload);
      }
      if (contract.subject === taskScheduler.finishTask.subject) {
        finishes.push(payload);
        return (scheduler.finish ?? (async () => ({})))(payload, finishes.length);
      }
      throw new Error(`unexpected request ${contract.subject}`);
    },
  };
  const worked: Array<{ queue: string; options: WorkerOptions; handler: (job: Job) => Promise<JobOutcome> }> = [];
  let stopped = 0;
  const queue = {
    work: (name: string, handler: (job: Job) => Promise<JobOutcome>, options: WorkerOptions) => {
      worked.push({ queue: name, options, handler });
      return { stop: async () => void stopped++ };
    },
  } as unknown as WorkQueue;
  const slept: number[] = [];
  const clock = { sleep: async (ms: number) => void slept.push(ms) } as unknown as Clock;
  const calls = new FakeCalls();
  const worker = new TaskWorker(queue, bus as unknown as MessageBus, calls as unknown as CallsService, clock, new SequentialIds('run'), OPTIONS);
  const job = (attempt = 1, data = TASK_ID): Job => ({ id: `job-${data}`, data, attempt });
  return { worker, calls, claims, finishes, emitted, bus, slept, worked, stopped: () => stopped, job };
}

const statusChanged = (status: taskScheduler.TaskStatus, taskId = TASK_ID): EventPayload<typeof taskScheduler.taskStatusChanged> => ({
  task: { taskId, status, createdAt: '2026-01-01T00:00:00.000Z', lastUpdatedAt: '2026-01-01T00:00:01.000Z', ttlMs: 60_000, pollIntervalMs: 1_000 },
  tenant: 'demo',
  era: 'legacy',
  owner: { subject: 'alice', anonymous: false },
});
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(TaskWorker, () => {
  describe('lifecycle', () => {
    it('works the tool-tasks queue with its options once the app has booted, and stops the worker on destroy', async () => {
      const { worker, worked, stopped } = setup();
      worker.onApplicationBootstrap();
      expect(worked.map(({ queue, options }) => ({ queue, options }))).toEqual([{ queue: 'tool-tasks', options: OPTIONS }]);
      await worker.onModuleDestroy();
      expect(stopped()).toBe(1);
    });
  });

  describe('handle', () => {
    it("claims the task, runs its call as the owner in task mode with the claim's input responses, and finishes with the result", async () => {
      const { worker, calls, claims, finishes } = setup({ claim: async () => ({ ...RUN, inputResponses: { 'input-1': { action: 'accept' } } }) });
      await expect(worker.handle({ id: 'j', data: TASK_ID, attempt: 2 })).resolves.toBe('done');
      expect(claims).toEqual([{ taskId: TASK_ID, attempt: 2, maxAttempts: 3, claimToken: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) }]);
      expect(calls.runs).toEqual([
        {
          // A fresh call id for each run: its client requests' ids are never reused (S-3).
          request: { ...CALL, callId: `t-${TASK_ID}-run-1`, taskMode: 'task', inputResponses: { 'input-1': { action: 'accept' } } },
          principal: owner,
          task: { onProgress: expect.any(Function) },
        },
      ]);
      expect(finishes).toEqual([{ taskId: TASK_ID, ending: { outcome: { result: text('done') } } }]);
    });

    it("runs a legacy task for the session that created it, through a TaskOutput with the task's progress token and log level", async () => {
      const legacyCall = { ...CALL, protocolVersion: '2025-11-25', progressToken: 'p-1', logLevel: 'info' as const };
      const { worker, calls, finishes, job } = setup({ claim: async () => ({ ...RUN, call: legacyCall, sessionId: 'session-1' }) });
      await expect(worker.handle(job())).resolves.toBe('done');
      const [run] = calls.runs;
      expect(run?.request).toMatchObject({ sessionId: 'session-1', taskMode: 'task' });
      expect(run?.task?.sink).toBeInstanceOf(TaskOutput);
      expect(run?.task?.notify).toEqual({ progressToken: 'p-1', logLevel: 'info' });
      expect(finishes).toHaveLength(1);
    });

    it('runs a modern task without a session or sink: it asks by input requests', async () => {
      const { worker, calls, job } = setup({ claim: async () => ({ ...RUN, sessionId: 'session-1' }) });
      await worker.handle(job());
      expect(calls.runs[0]?.request).not.toHaveProperty('sessionId');
      expect(calls.runs[0]?.task).toEqual({ onProgress: expect.any(Function) });
    });

    it("reports the run's first progress as the task's status message at once (S-304: modern tasks have no progress notifications)", async () => {
      const reported: unknown[] = [];
      const { worker, calls, job, bus } = setup();
      bus.onRequest(taskScheduler.reportTaskProgress.subject, (payload) => void reported.push(payload));
      const answer = deferred<CallAnswer>();
      calls.answer = () => answer.promise;
      const handled = worker.handle(job());
      await flush();
      calls.runs[0]?.task?.onProgress?.(1, 4, 'Step 1 of 4');
      // Within the interval: held back, then dropped when the run ends.
      calls.runs[0]?.task?.onProgress?.(2, 4, 'Step 2 of 4');
      answer.resolve(text('done'));
      await handled;
      expect(reported).toEqual([{ taskId: TASK_ID, statusMessage: 'Step 1 of 4' }]);
    });

    it('finishes with the wire error the call answered', async () => {
      const { worker, calls, finishes, job } = setup();
      calls.answer = async () => {
        throw new RpcError(WireErrorCode.InsufficientScope, 'Tool export_report requires scope demo:reports', { scopes: ['mcp', 'demo:reports'] });
      };
      await expect(worker.handle(job())).resolves.toBe('done');
      expect(finishes).toEqual([
        {
          taskId: TASK_ID,
          ending: {
            outcome: {
              error: {
                code: WireErrorCode.InsufficientScope,
                message: 'Tool export_report requires scope demo:reports',
                data: { scopes: ['mcp', 'demo:reports'] },
              },
            },
          },
        },
      ]);
    });

    it('finishes a modern call that asks its client with the input requests', async () => {
      const { worker, calls, finishes, job } = setup();
      const inputRequests = { 'input-1': { method: 'elicitation/create' as const, params: { message: 'Go?' } } };
      calls.answer = async () => ({ inputRequired: { inputRequests } });
      await expect(worker.handle(job())).resolves.toBe('done');
      expect(finishes).toEqual([{ taskId: TASK_ID, ending: { inputRequests } }]);
    });

    it('acknowledges a job whose claim says skip, without running anything', async () => {
      const { worker, calls, finishes, job } = setup({ claim: async () => ({ action: 'skip' }) });
      await expect(worker.handle(job(4))).resolves.toBe('done');
      expect(calls.runs).toEqual([]);
      expect(finishes).toEqual([]);
    });

    it('gives the job back for the delay a retry claim names', async () => {
      const { worker, calls, job } = setup({ claim: async () => ({ action: 'retry', afterMs: 750 }) });
      await expect(worker.handle(job())).resolves.toEqual({ retryAfterMs: 750 });
      expect(calls.runs).toEqual([]);
    });

    it('gives the job back for 2 s when the scheduler cannot be asked, after asking six times over about 30 s', async () => {
      const { worker, calls, claims, slept, job } = setup({
        claim: async () => {
          throw new RpcError(WireErrorCode.Unavailable, 'no responders');
        },
      });
      await expect(worker.handle(job())).resolves.toEqual({ retryAfterMs: 2_000 });
      expect(calls.runs).toEqual([]);
      expect(slept).toEqual([1_000, 2_000, 4_000, 8_000, 15_000]);
      expect(claims).toHaveLength(6);
    });

    it('asks again with the same claim token when the answer was lost, and runs on the answer that comes', async () => {
      let asked = 0;
      const { worker, calls, claims, job } = setup({
        claim: async () => {
          asked += 1;
          if (asked === 1) throw new RpcError(WireErrorCode.Timeout, 'no answer in time');
          return RUN;
        },
      });
      await expect(worker.handle(job())).resolves.toBe('done');
      const tokens = claims.map((claim) => (claim as { claimToken: string }).claimToken);
      expect(tokens).toHaveLength(2);
      expect(tokens[1]).toBe(tokens[0]);
      expect(calls.runs).toHaveLength(1);
      // The next delivery is another claim: another token.
      await worker.handle(job(2));
      expect((claims[2] as { claimToken: string }).claimToken).not.toBe(tokens[0]);
    });

    it('does not ask again when the scheduler refuses the claim', async () => {
      const { worker, claims, job } = setup({
        claim: async () => {
          throw new RpcError(WireErrorCode.InvalidParams, 'bad claim');
        },
      });
      await expect(worker.handle(job())).resolves.toEqual({ retryAfterMs: 2_000 });
      expect(claims).toHaveLength(1);
    });

    it('drops a job whose data is not a task id, asking nothing', async () => {
      const { worker, claims, job } = setup();
      await expect(worker.handle(job(1, 'not a task id'))).resolves.toBe('done');
      expect(claims).toEqual([]);
    });
  });

  describe('finishing', () => {
    it('tries finishTask again, with growing pauses, while the scheduler is unreachable', async () => {
      const { worker, finishes, slept, job } = setup({
        finish: async (_payload, attempt) => {
          if (attempt < 3) throw new RpcError(attempt === 1 ? WireErrorCode.Timeout : WireErrorCode.Unavailable, 'unreachable');
          return {};
        },
      });
      await expect(worker.handle(job())).resolves.toBe('done');
      expect(finishes).toHaveLength(3);
      expect(slept).toEqual([1_000, 2_000]);
    });

    it('gives the job back after six failed tries over about 30 s, running the call only once', async () => {
      const { worker, calls, finishes, slept, job } = setup({
        finish: async () => {
          throw new RpcError(WireErrorCode.Unavailable, 'no responders');
        },
      });
      await expect(worker.handle(job())).resolves.toEqual({ retryAfterMs: 5_000 });
      expect(calls.runs).toHaveLength(1);
      expect(finishes).toHaveLength(6);
      expect(slept).toEqual([1_000, 2_000, 4_000, 8_000, 15_000]);
    });

    it('takes a refusal of the ending (the task is gone) as delivered', async () => {
      const { worker, finishes, slept, job } = setup({
        finish: async () => {
          throw new RpcError(WireErrorCode.InvalidParams, 'Unknown task');
        },
      });
      await expect(worker.handle(job())).resolves.toBe('done');
      expect(finishes).toHaveLength(1);
      expect(slept).toEqual([]);
    });
  });

  describe('resultAwaited', () => {
    it("sends a legacy run's unanswered requests again when its owner opens a tasks/result stream, in any session, whose answers then count (S-286)", async () => {
      const legacyCall = { ...CALL, protocolVersion: '2025-11-25' };
      const { worker, calls, emitted, job } = setup({ claim: async () => ({ ...RUN, call: legacyCall, sessionId: 'session-1' }) });
      calls.answer = (request) => calls.hang(request);
      const handled = worker.handle(job());
      await flush();
      const sink = calls.runs[0]?.task?.sink;
      sink?.send({ jsonrpc: '2.0', id: 'r#1', method: 'roots/list' });
      const posted = () => emitted.filter((event) => event.subject === sessionBroker.taskMessage.subject);
      expect(posted()).toHaveLength(1);
      worker.resultAwaited({ taskId: 'other_0123456789abcdefABCD', sessionId: 'session-1' });
      expect(posted()).toHaveLength(1);
      worker.resultAwaited({ taskId: TASK_ID, sessionId: 'session-1' });
      expect(posted()).toHaveLength(2);
      expect(sink?.alsoAnsweredBy('session-2')).toBe(false);
      worker.resultAwaited({ taskId: TASK_ID, sessionId: 'session-2' });
      expect(posted()).toHaveLength(3);
      expect(sink?.alsoAnsweredBy('session-2')).toBe(true);
      worker.statusChanged(statusChanged('cancelled'));
      await handled;
    });
  });

  describe('statusChanged', () => {
    it('cancels the running call of a cancelled task, which then finishes with CANCELLED', async () => {
      const { worker, calls, finishes, job } = setup();
      calls.answer = (request) => calls.hang(request);
      const handled = worker.handle(job());
      await flush();
      expect(calls.runs).toHaveLength(1);
      worker.statusChanged(statusChanged('cancelled'));
      await expect(handled).resolves.toBe('done');
      expect(calls.cancelled).toEqual([calls.runs[0]?.request['callId']]);
      expect(finishes).toEqual([
        { taskId: TASK_ID, ending: { outcome: { error: { code: WireErrorCode.Cancelled, message: 'Call cancelled: task cancelled' } } } },
      ]);
    });

    it('does not run a task cancelled while its claim was on its way', async () => {
      const claim = deferred<unknown>();
      const { worker, calls, finishes, job } = setup({ claim: () => claim.promise });
      const handled = worker.handle(job());
      await flush();
      worker.statusChanged(statusChanged('cancelled'));
      claim.resolve(RUN);
      await expect(handled).resolves.toBe('done');
      expect(calls.runs).toEqual([]);
      expect(finishes).toEqual([{ taskId: TASK_ID, ending: { outcome: { error: { code: WireErrorCode.Cancelled, message: 'Task cancelled' } } } }]);
    });

    it('ignores other statuses, and tasks this replica is not running', async () => {
      const { worker, calls, job } = setup();
      calls.answer = (request) => calls.hang(request);
      const handled = worker.handle(job());
      await flush();
      worker.statusChanged(statusChanged('input_required'));
      worker.statusChanged(statusChanged('cancelled', 'other_0123456789abcdefABCD'));
      expect(calls.cancelled).toEqual([]);
      worker.statusChanged(statusChanged('cancelled'));
      await expect(handled).resolves.toBe('done');
    });
  });
});
