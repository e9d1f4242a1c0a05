import { describe, expect, it } from 'vitest';
import { taskScheduler, toolExecutor, WireErrorCode, type EventContract, type Principal, type RpcContract } from '@mcp-platform/protocol-contracts';
import { RELATED_TASK_META_KEY } from '@mcp-platform/protocol-mcp';
import { RpcError, type MessageBus } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import { LazyResponse } from '../streams/lazy-response';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { TaskMethods, type TaskRequestContext } from './task-methods.service';
import { TaskResultStreams } from './task-result-streams.registry';

const principal: Principal = { subject: 'alice', tenant: 'demo', scopes: ['mcp'], anonymous: false };
const server = { tenant: 'demo', name: 'default' } as VirtualServer;
const TASK_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

function view(status: taskScheduler.TaskStatus, extra: Partial<taskScheduler.TaskView> = {}): taskScheduler.TaskView {
  return { taskId: TASK_ID, status, createdAt: '2026-11-30T10:00:00.000Z', lastUpdatedAt: '2026-11-30T10:00:01.000Z', ttlMs: 3_600_000, pollIntervalMs: 1_000, ...extra };
}

/** A bus whose requests answer from `answers` by subject, in order, recording what was asked and emitted. */
function fakeBus(answers: Record<string, Array<unknown | Error | (() => unknown)>>) {
  const asked: Array<{ subject: string; request: unknown }> = [];
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = {
    request: async (contract: RpcContract, request: unknown) => {
      asked.push({ subject: contract.subject, request });
      const next = answers[contract.subject]?.shift();
      if (next === undefined) throw new Error(`no answer left for ${contract.subject}`);
      if (next instanceof Error) throw next;
      return typeof next === 'function' ? next() : next;
    },
    emit: (contract: EventContract, payload: unknown) => void emitted.push({ subject: contract.subject, payload }),
  } as unknown as MessageBus;
  return { bus, asked, emitted };
}

const legacy: TaskRequestContext = { era: 'legacy', requestId: 7, virtualServer: server, principal, sessionId: 'session-1' };
const modern: TaskRequestContext = { era: 'modern', requestId: 7, virtualServer: server, principal };

describe(TaskMethods, () => {
  describe('create', () => {
    const call = { name: 'export_report', arguments: { seconds: 1 }, protocolVersion: '2025-11-25', clientCapabilities: {}, requestedTtlMs: 60_000 };

    it('answers a legacy CreateTaskResult with ttl and pollInterval (S-276, S-277), passing the session and the requested TTL', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.createTask.subject]: [view('working')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).create({ ...legacy, ...call });
      expect(outcome).toEqual({
        kind: 'result',
        result: { task: { taskId: TASK_ID, status: 'working', createdAt: '2026-11-30T10:00:00.000Z', lastUpdatedAt: '2026-11-30T10:00:01.000Z', ttl: 3_600_000, pollInterval: 1_000 } },
      });
      expect(asked[0]?.request).toEqual({
        era: 'legacy',
        sessionId: 'session-1',
        call: { tenant: 'demo', server: 'default', name: 'export_report', arguments: { seconds: 1 }, protocolVersion: '2025-11-25', clientCapabilities: {} },
        requestedTtlMs: 60_000,
      });
    });

    it('answers a modern task outcome with ttlMs and pollIntervalMs (S-297, S-307)', async () => {
      const { bus } = fakeBus({ [taskScheduler.createTask.subject]: [view('working')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).create({ ...modern, ...call });
      expect(outcome).toEqual({ kind: 'task', task: expect.objectContaining({ taskId: TASK_ID, ttlMs: 3_600_000, pollIntervalMs: 1_000 }) });
    });

    it('maps a tool that forbids tasks to -32601 (S-197)', async () => {
      const { bus } = fakeBus({ [taskScheduler.createTask.subject]: [new RpcError(WireErrorCode.Unsupported, 'Tool calculate does not support tasks')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).create({ ...legacy, ...call });
      expect(outcome).toMatchObject({ kind: 'error', error: { id: 7, error: { code: -32601 } } });
    });
  });

  describe('get', () => {
    it('refuses a missing task id with -32602 (S-288) without asking the scheduler', async () => {
      const { bus, asked } = fakeBus({});
      await expect(new TaskMethods(bus, new TaskResultStreams()).get(legacy, {})).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
      expect(asked).toEqual([]);
    });

    it('answers an unknown task with -32602 (S-288)', async () => {
      const { bus } = fakeBus({ [taskScheduler.getTask.subject]: [new RpcError(WireErrorCode.NotFound, 'Unknown task')] });
      await expect(new TaskMethods(bus, new TaskResultStreams()).get(legacy, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
    });

    it('gives a modern completed task its result, a failed one its JSON-RPC error, an input_required one its requests (S-300)', async () => {
      const result = { content: [{ type: 'text', text: 'done' }] };
      const inputRequests = { 'input-1': { method: 'elicitation/create', params: { message: 'Sure?' } } };
      const { bus } = fakeBus({
        [taskScheduler.getTask.subject]: [
          { task: view('completed'), outcome: { result } },
          { task: view('failed', { statusMessage: 'boom' }), outcome: { error: { code: 'INVALID_PARAMS', message: 'Unknown tool: x' } } },
          { task: view('input_required', { inputRequests }) },
        ],
      });
      const methods = new TaskMethods(bus, new TaskResultStreams());
      await expect(methods.get(modern, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'result', result: { status: 'completed', result } });
      await expect(methods.get(modern, { taskId: TASK_ID })).resolves.toMatchObject({
        kind: 'result',
        result: { status: 'failed', statusMessage: 'boom', error: { code: -32602, message: 'Unknown tool: x' } },
      });
      await expect(methods.get(modern, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'result', result: { status: 'input_required', inputRequests } });
    });

    it('gives a modern task the scheduler failed without an outcome (its worker died) an error with the status message (S-300)', async () => {
      const statusMessage = 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again';
      const { bus } = fakeBus({ [taskScheduler.getTask.subject]: [{ task: view('failed', { statusMessage }) }] });
      await expect(new TaskMethods(bus, new TaskResultStreams()).get(modern, { taskId: TASK_ID })).resolves.toMatchObject({
        kind: 'result',
        result: { status: 'failed', error: { code: -32603, message: `Task ${TASK_ID} failed: ${statusMessage}` } },
      });
    });
  });

  describe('result (legacy)', () => {
    it("carries the task's requests for its session while it waits, asking the executor to send the outstanding ones again (S-286)", async () => {
      const streams = new TaskResultStreams();
      const target = new FakeTarget();
      const elicit = { jsonrpc: '2.0', id: `t-${TASK_ID}-abc#1`, method: 'elicitation/create', params: { message: 'Go on?' } };
      const { bus, emitted } = fakeBus({
        [taskScheduler.awaitTask.subject]: [
          () => {
            // While the first round waits: the request, sent twice, and a request for another session.
            streams.deliver(TASK_ID, 'session-1', elicit);
            streams.deliver(TASK_ID, 'session-1', elicit);
            streams.deliver(TASK_ID, 'session-2', { ...elicit, id: 'other#1' });
            return { task: view('input_required') };
          },
          { task: view('completed'), outcome: { result: { content: [] } } },
        ],
      });
      await new TaskMethods(bus, streams).result(legacy, { taskId: TASK_ID }, new LazyResponse(target));
      expect(emitted).toEqual([{ subject: toolExecutor.taskResultAwaited.subject, payload: { taskId: TASK_ID, sessionId: 'session-1' } }]);
      const written = target.chunks.join('');
      expect(written.split('elicitation/create')).toHaveLength(2);
      expect(written).not.toContain('other#1');
      // Once answered, the stream is no longer held.
      expect(streams.size).toBe(0);
    });

    it('waits until the task is terminal, then answers its result with related-task in _meta (S-281, S-285)', async () => {
      const result = { content: [{ type: 'text', text: 'done' }], _meta: { mine: 1 } };
      const { bus, asked } = fakeBus({ [taskScheduler.awaitTask.subject]: [{ task: view('working') }, { task: view('completed'), outcome: { result } }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).result(legacy, { taskId: TASK_ID }, new LazyResponse(new FakeTarget()));
      expect(outcome).toEqual({ kind: 'result', result: { ...result, _meta: { mine: 1, [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } } });
      expect(asked).toHaveLength(2);
    });

    it('answers the JSON-RPC error the call would have answered', async () => {
      const { bus } = fakeBus({ [taskScheduler.awaitTask.subject]: [{ task: view('failed'), outcome: { error: { code: 'INVALID_PARAMS', message: 'Unknown tool: x' } } }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).result(legacy, { taskId: TASK_ID }, new LazyResponse(new FakeTarget()));
      expect(outcome).toMatchObject({ kind: 'error', error: { id: 7, error: { code: -32602, message: 'Unknown tool: x' } } });
    });

    it('answers an error naming the task for a cancelled task, which has no result', async () => {
      const { bus } = fakeBus({ [taskScheduler.awaitTask.subject]: [{ task: view('cancelled') }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).result(legacy, { taskId: TASK_ID }, new LazyResponse(new FakeTarget()));
      expect(outcome).toMatchObject({ kind: 'error', error: { error: { code: -32602, data: { [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } } } });
    });

    it('answers at once, with the status message, for a task the scheduler failed without an outcome', async () => {
      const statusMessage = 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again';
      const { bus, asked } = fakeBus({ [taskScheduler.awaitTask.subject]: [{ task: view('failed', { statusMessage }) }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams()).result(legacy, { taskId: TASK_ID }, new LazyResponse(new FakeTarget()));
      expect(outcome).toMatchObject({
        kind: 'error',
        error: { error: { code: -32603, message: `Task ${TASK_ID} failed: ${statusMessage}`, data: { [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } } },
      });
      expect(asked).toHaveLength(1);
    });

    it('stops waiting once the client went away', async () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      const { bus, asked } = fakeBus({ [taskScheduler.awaitTask.subject]: [{ task: view('working') }, { task: view('working') }] });
      const waiting = new TaskMethods(bus, new TaskResultStreams()).result(legacy, { taskId: TASK_ID }, response);
      target.dropConnection();
      await expect(waiting).resolves.toEqual({ kind: 'none' });
      expect(asked).toHaveLength(1);
    });
  });

  describe('cancel', () => {
    it('answers the cancelled task in the legacy era and an empty result in the modern one (S-283, S-302)', async () => {
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [view('cancelled'), view('cancelled')] });
      const methods = new TaskMethods(bus, new TaskResultStreams());
      await expect(methods.cancel(legacy, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'result', result: { taskId: TASK_ID, status: 'cancelled' } });
      await expect(methods.cancel(modern, { taskId: TASK_ID })).resolves.toEqual({ kind: 'result', result: {} });
    });

    it('refuses a terminal task with -32602 in the legacy era and acknowledges it in the modern one', async () => {
      const terminal = () => new RpcError(WireErrorCode.InvalidParams, 'Task is already completed');
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [terminal(), terminal()] });
      const methods = new TaskMethods(bus, new TaskResultStreams());
      await expect(methods.cancel(legacy, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
      await expect(methods.cancel(modern, { taskId: TASK_ID })).resolves.toEqual({ kind: 'result', result: {} });
    });

    it('still refuses an unknown task in the modern era', async () => {
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [new RpcError(WireErrorCode.NotFound, 'Unknown task')] });
      await expect(new TaskMethods(bus, new TaskResultStreams()).cancel(modern, { taskId: TASK_ID })).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
    });
  });

  describe('list and update', () => {
    it('lists the caller’s tasks in legacy words with the next cursor, and refuses a non-string cursor', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.listTasks.subject]: [{ tasks: [view('working')], nextCursor: 'next' }] });
      const methods = new TaskMethods(bus, new TaskResultStreams());
      await expect(methods.list(legacy, { cursor: 'c1' })).resolves.toMatchObject({ kind: 'result', result: { tasks: [{ taskId: TASK_ID, ttl: 3_600_000 }], nextCursor: 'next' } });
      expect(asked[0]?.request).toEqual({ tenant: 'demo', cursor: 'c1', sessionId: 'session-1' });
      await expect(methods.list(legacy, { cursor: 5 })).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
    });

    it('forwards modern input responses and acknowledges with an empty result (S-301)', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.updateTask.subject]: [{}] });
      const methods = new TaskMethods(bus, new TaskResultStreams());
      await expect(methods.update(modern, { taskId: TASK_ID, inputResponses: { 'input-1': { action: 'accept' } } })).resolves.toEqual({ kind: 'result', result: {} });
      expect(asked[0]?.request).toEqual({ taskId: TASK_ID, inputResponses: { 'input-1': { action: 'accept' } } });
      await expect(methods.update(modern, { taskId: TASK_ID, inputResponses: [] })).resolves.toMatchObject({ kind: 'error', error: { error: { code: -32602 } } });
    });
  });
});
