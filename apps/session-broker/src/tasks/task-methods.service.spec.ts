import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type EventContract, type Principal, type RpcContract, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { RELATED_TASK_META_KEY } from '@mcp-platform/protocol-mcp';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { type MessageBus, RpcError } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import type { MethodCall } from '../requests/method-call';
import { LazyResponse } from '../streams/lazy-response';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { TaskMethods } from './task-methods.service';
import { TaskRateLimiter } from './task-rate-limiter';
import { TaskResultStreams } from './task-result-streams.registry';

const principal: Principal = { subject: 'alice', tenant: 'demo', scopes: ['mcp'], anonymous: false };
const server = { tenant: 'demo', name: 'default' } as VirtualServer;
const TASK_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

function view(status: taskScheduler.TaskStatus, extra: Partial<taskScheduler.TaskView> = {}): taskScheduler.TaskView {
  return {
    taskId: TASK_ID,
    status,
    createdAt: '2026-11-30T10:00:00.000Z',
    lastUpdatedAt: '2026-11-30T10:00:01.000Z',
    ttlMs: 3_600_000,
    pollIntervalMs: 1_000,
    ...extra,
  };
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

const response = {} as LazyResponse;
/** A request in a 2025-11-25 session, and one on the stateless wire. */
const legacy: MethodCall = {
  requestId: 7,
  virtualServer: server,
  principal,
  protocolVersion: '2025-11-25',
  clientCapabilities: {},
  response,
  session: { id: 'session-1', openCallStream: () => ({ key: 'k' }) },
  tasks: 'by-request',
};
const modern: MethodCall = {
  requestId: 7,
  virtualServer: server,
  principal,
  protocolVersion: '2026-07-28',
  clientCapabilities: {},
  response,
  tasks: 'by-server',
};
/** The same caller in another session. */
const inSession = (call: MethodCall, id: string): MethodCall => ({ ...call, session: { id, openCallStream: () => ({ key: 'k' }) } });
const neutral = {
  taskId: TASK_ID,
  status: 'working',
  createdAt: '2026-11-30T10:00:00.000Z',
  lastUpdatedAt: '2026-11-30T10:00:01.000Z',
  ttlMs: 3_600_000,
  pollIntervalMs: 1_000,
};

/** The limit off: the tests of what the methods answer. */
const unlimited = () => new TaskRateLimiter({ operationsPerMinute: 0 });

describe(TaskMethods, () => {
  describe('create', () => {
    const taskCall = { name: 'export_report', arguments: { seconds: 1 }, requestedTtlMs: 60_000 };

    it('answers the created task (S-276), passing the session, the request’s era and the requested TTL', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.createTask.subject]: [view('working')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).create(legacy, taskCall);
      expect(outcome).toEqual({ kind: 'task', task: neutral });
      expect(asked[0]?.request).toEqual({
        era: 'legacy',
        sessionId: 'session-1',
        call: { tenant: 'demo', server: 'default', name: 'export_report', arguments: { seconds: 1 }, protocolVersion: '2025-11-25', clientCapabilities: {} },
        requestedTtlMs: 60_000,
      });
    });

    it('creates a stateless request’s task in the modern era, with no session (S-297)', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.createTask.subject]: [view('working')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).create(modern, taskCall);
      expect(outcome).toEqual({ kind: 'task', task: neutral });
      expect(asked[0]?.request).toMatchObject({ era: 'modern', call: { protocolVersion: '2026-07-28' } });
      expect(asked[0]?.request).not.toHaveProperty('sessionId');
    });

    it('creates the task with the answers its call gathered before it (issue 14 §2.4)', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.createTask.subject]: [view('working')] });
      const inputResponses = { user_name: { action: 'accept', content: { name: 'Alice' } } };
      await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).create(modern, {
        name: 'test_tool_with_task',
        inputResponses,
      });
      expect(asked[0]?.request).toMatchObject({ era: 'modern', call: { name: 'test_tool_with_task' }, inputResponses });
    });

    it('maps a tool that forbids tasks to -32601 (S-197)', async () => {
      const { bus } = fakeBus({ [taskScheduler.createTask.subject]: [new RpcError(WireErrorCode.Unsupported, 'Tool calculate does not support tasks')] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).create(legacy, taskCall);
      expect(outcome).toMatchObject({ kind: 'error', error: { code: -32601 } });
    });
  });

  describe('get', () => {
    it('answers an unknown task with -32602 (S-288)', async () => {
      const { bus } = fakeBus({ [taskScheduler.getTask.subject]: [new RpcError(WireErrorCode.NotFound, 'Unknown task')] });
      await expect(
        new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).get({ taskId: TASK_ID }, legacy),
      ).resolves.toMatchObject({ kind: 'error', error: { code: -32602 } });
    });

    it('gives a completed task its result, a failed one its JSON-RPC error, an input_required one its requests (S-300)', async () => {
      const result = { content: [{ type: 'text', text: 'done' }] };
      const inputRequests = { 'input-1': { method: 'elicitation/create', params: { message: 'Sure?' } } };
      const { bus } = fakeBus({
        [taskScheduler.getTask.subject]: [
          { task: view('completed'), outcome: { result } },
          { task: view('failed', { statusMessage: 'boom' }), outcome: { error: { code: 'INVALID_PARAMS', message: 'Unknown tool: x' } } },
          { task: view('input_required', { inputRequests }) },
        ],
      });
      const methods = new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error'));
      await expect(methods.get({ taskId: TASK_ID }, modern)).resolves.toMatchObject({ kind: 'task', task: { status: 'completed', result } });
      await expect(methods.get({ taskId: TASK_ID }, modern)).resolves.toMatchObject({
        kind: 'task',
        task: { status: 'failed', statusMessage: 'boom', error: { code: -32602, message: 'Unknown tool: x' } },
      });
      await expect(methods.get({ taskId: TASK_ID }, modern)).resolves.toMatchObject({ kind: 'task', task: { status: 'input_required', inputRequests } });
    });

    it('gives a task the scheduler failed without an outcome (its worker died) an error with the status message (S-300)', async () => {
      const statusMessage = 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again';
      const { bus } = fakeBus({ [taskScheduler.getTask.subject]: [{ task: view('failed', { statusMessage }) }] });
      await expect(
        new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).get({ taskId: TASK_ID }, modern),
      ).resolves.toMatchObject({
        kind: 'task',
        task: { status: 'failed', error: { code: -32603, message: `Task ${TASK_ID} failed: ${statusMessage}` } },
      });
    });
  });

  describe('result (legacy)', () => {
    it("carries the caller's task's requests while it waits, asking the executor to send the outstanding ones again (S-286)", async () => {
      const streams = new TaskResultStreams();
      const target = new FakeTarget();
      const elicit = { jsonrpc: '2.0', id: `t-${TASK_ID}-abc#1`, method: 'elicitation/create', params: { message: 'Go on?' } };
      const { bus, emitted } = fakeBus({
        [taskScheduler.getTask.subject]: [{ task: view('input_required') }],
        [taskScheduler.awaitTask.subject]: [
          () => {
            // While the first round waits: the request, sent twice, and a request of another task.
            streams.deliver(TASK_ID, elicit);
            streams.deliver(TASK_ID, elicit);
            streams.deliver('BBBBBBBBBBBBBBBBBBBBBB', { ...elicit, id: 'other#1' });
            return { task: view('input_required') };
          },
          { task: view('completed'), outcome: { result: { content: [] } } },
        ],
      });
      await new TaskMethods(bus, streams, unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(target) },
      );
      expect(emitted).toEqual([{ subject: toolExecutor.taskResultAwaited.subject, payload: { taskId: TASK_ID, sessionId: 'session-1' } }]);
      const written = target.chunks.join('');
      expect(written.split('elicitation/create')).toHaveLength(2);
      expect(written).not.toContain('other#1');
      // Once answered, the stream is no longer held.
      expect(streams.size).toBe(0);
    });

    it('holds no stream and tells no executor for a task the caller does not own (S-289)', async () => {
      const streams = new TaskResultStreams();
      const { bus, emitted } = fakeBus({ [taskScheduler.getTask.subject]: [new RpcError(WireErrorCode.NotFound, 'Unknown task')] });
      const outcome = await new TaskMethods(bus, streams, unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(new FakeTarget()) },
      );
      expect(outcome).toMatchObject({ kind: 'error', error: { code: -32602 } });
      expect(emitted).toEqual([]);
      expect(streams.size).toBe(0);
    });

    it('waits until the task is terminal, then answers its result with related-task in _meta (S-281, S-285)', async () => {
      const result = { content: [{ type: 'text', text: 'done' }], _meta: { mine: 1 } };
      const { bus, asked } = fakeBus({
        [taskScheduler.getTask.subject]: [{ task: view('working') }],
        [taskScheduler.awaitTask.subject]: [{ task: view('working') }, { task: view('completed'), outcome: { result } }],
      });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(new FakeTarget()) },
      );
      expect(outcome).toEqual({ kind: 'result', body: { ...result, _meta: { mine: 1, [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } } });
      expect(asked.map(({ subject }) => subject)).toEqual([taskScheduler.getTask.subject, taskScheduler.awaitTask.subject, taskScheduler.awaitTask.subject]);
    });

    it('answers the JSON-RPC error the call would have answered', async () => {
      const { bus } = fakeBus({
        [taskScheduler.getTask.subject]: [{ task: view('failed'), outcome: { error: { code: 'INVALID_PARAMS', message: 'Unknown tool: x' } } }],
      });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(new FakeTarget()) },
      );
      expect(outcome).toMatchObject({ kind: 'error', error: { code: -32602, message: 'Unknown tool: x' } });
    });

    it('answers an error naming the task for a cancelled task, which has no result', async () => {
      const { bus } = fakeBus({ [taskScheduler.getTask.subject]: [{ task: view('cancelled') }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(new FakeTarget()) },
      );
      expect(outcome).toMatchObject({ kind: 'error', error: { code: -32602, data: { [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } } });
    });

    it('answers at once, with the status message, for a task the scheduler failed without an outcome', async () => {
      const statusMessage = 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again';
      const { bus, asked } = fakeBus({ [taskScheduler.getTask.subject]: [{ task: view('failed', { statusMessage }) }] });
      const outcome = await new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response: new LazyResponse(new FakeTarget()) },
      );
      expect(outcome).toMatchObject({
        kind: 'error',
        error: { code: -32603, message: `Task ${TASK_ID} failed: ${statusMessage}`, data: { [RELATED_TASK_META_KEY]: { taskId: TASK_ID } } },
      });
      expect(asked).toHaveLength(1);
    });

    it('stops waiting once the client went away', async () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      const { bus, asked } = fakeBus({
        [taskScheduler.getTask.subject]: [{ task: view('working') }],
        [taskScheduler.awaitTask.subject]: [{ task: view('working') }, { task: view('working') }],
      });
      const waiting = new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).result(
        { taskId: TASK_ID },
        { ...legacy, response },
      );
      target.dropConnection();
      await expect(waiting).resolves.toEqual({ kind: 'none' });
      expect(asked).toHaveLength(2);
    });
  });

  describe('cancel', () => {
    it('answers the cancelled task (S-283)', async () => {
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [view('cancelled')] });
      await expect(new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).cancel({ taskId: TASK_ID }, legacy)).resolves.toEqual(
        {
          kind: 'cancel',
          cancel: { task: { ...neutral, status: 'cancelled' } },
        },
      );
    });

    it('says a terminal task could not be cancelled, with the -32602 the scheduler gave (the codec decides what the era answers, S-302)', async () => {
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [new RpcError(WireErrorCode.InvalidParams, 'Task is already completed')] });
      await expect(new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).cancel({ taskId: TASK_ID }, modern)).resolves.toEqual(
        {
          kind: 'cancel',
          cancel: { alreadyTerminal: { code: -32602, message: 'Task is already completed' } },
        },
      );
    });

    it('refuses an unknown task', async () => {
      const { bus } = fakeBus({ [taskScheduler.cancelTask.subject]: [new RpcError(WireErrorCode.NotFound, 'Unknown task')] });
      await expect(
        new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error')).cancel({ taskId: TASK_ID }, modern),
      ).resolves.toMatchObject({ kind: 'error', error: { code: -32602 } });
    });
  });

  describe('list and update', () => {
    it('lists the caller’s tasks with the next cursor', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.listTasks.subject]: [{ tasks: [view('working')], nextCursor: 'next' }] });
      const methods = new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error'));
      await expect(methods.list({ cursor: 'c1' }, legacy)).resolves.toEqual({ kind: 'result', body: { tasks: [neutral], nextCursor: 'next' } });
      expect(asked[0]?.request).toEqual({ tenant: 'demo', cursor: 'c1', sessionId: 'session-1' });
    });

    it('forwards modern input responses and acknowledges with an empty result (S-301)', async () => {
      const { bus, asked } = fakeBus({ [taskScheduler.updateTask.subject]: [{}] });
      const methods = new TaskMethods(bus, new TaskResultStreams(), unlimited(), new SequentialIds('error'));
      await expect(methods.update({ taskId: TASK_ID, inputResponses: { 'input-1': { action: 'accept' } } }, modern)).resolves.toEqual({
        kind: 'result',
        body: {},
      });
      expect(asked[0]?.request).toEqual({ taskId: TASK_ID, inputResponses: { 'input-1': { action: 'accept' } } });
    });
  });

  describe('rate limit (S-291, S-292)', () => {
    /** 6 a minute: a burst of 10, then one token every 10 s. */
    function limited() {
      let now = 1_000_000;
      return { limiter: new TaskRateLimiter({ operationsPerMinute: 6, now: () => now }), advance: (ms: number) => (now += ms) };
    }
    const refusal = (retryAfterSeconds: number) => ({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': String(retryAfterSeconds) },
      error: { code: -32000, message: `Too many task requests: retry after ${retryAfterSeconds} s` },
    });

    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('refuses every task operation over the limit with 429 and Retry-After, without asking the scheduler', async () => {
      vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { limiter, advance } = limited();
      const { bus, asked, emitted } = fakeBus({ [taskScheduler.getTask.subject]: Array.from({ length: 10 }, () => ({ task: view('working') })) });
      const methods = new TaskMethods(bus, new TaskResultStreams(), limiter, new SequentialIds('error'));
      for (let index = 0; index < 10; index += 1) await expect(methods.get({ taskId: TASK_ID }, legacy)).resolves.toMatchObject({ kind: 'task' });
      expect(asked).toHaveLength(10);

      const target = new FakeTarget();
      await expect(methods.create(legacy, { name: 'export_report' })).resolves.toEqual(refusal(10));
      await expect(methods.get({ taskId: TASK_ID }, legacy)).resolves.toEqual(refusal(10));
      await expect(methods.result({ taskId: TASK_ID }, { ...legacy, response: new LazyResponse(target) })).resolves.toEqual(refusal(10));
      await expect(methods.list({}, legacy)).resolves.toEqual(refusal(10));
      advance(4_001);
      await expect(methods.cancel({ taskId: TASK_ID }, modern)).resolves.toEqual(refusal(6));
      await expect(methods.update({ taskId: TASK_ID, inputResponses: {} }, modern)).resolves.toEqual(refusal(6));
      expect(asked).toHaveLength(10);
      // A refused tasks/result neither waits nor tells the executor it is awaited.
      expect(emitted).toEqual([]);
      expect(target.headersSent).toBe(false);
    });

    it('lets the requester go on once a token is back', async () => {
      const { limiter, advance } = limited();
      const { bus, asked } = fakeBus({ [taskScheduler.listTasks.subject]: Array.from({ length: 11 }, () => ({ tasks: [] })) });
      const methods = new TaskMethods(bus, new TaskResultStreams(), limiter, new SequentialIds('error'));
      for (let index = 0; index < 10; index += 1) await methods.list({}, legacy);
      vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      await expect(methods.list({}, legacy)).resolves.toMatchObject({ kind: 'error', status: 429 });
      advance(10_000);
      await expect(methods.list({}, legacy)).resolves.toEqual({ kind: 'result', body: { tasks: [] } });
      expect(asked).toHaveLength(11);
    });

    it('counts tasks/result once, however many rounds it waits', async () => {
      const { limiter } = limited();
      const { bus, asked } = fakeBus({
        [taskScheduler.awaitTask.subject]: [{ task: view('working') }, { task: view('completed'), outcome: { result: { content: [] } } }],
        [taskScheduler.getTask.subject]: [{ task: view('working') }, ...Array.from({ length: 9 }, () => ({ task: view('completed') }))],
      });
      const methods = new TaskMethods(bus, new TaskResultStreams(), limiter, new SequentialIds('error'));
      await expect(methods.result({ taskId: TASK_ID }, { ...legacy, response: new LazyResponse(new FakeTarget()) })).resolves.toMatchObject({ kind: 'result' });
      expect(asked).toHaveLength(3);
      // Nine of the burst of ten are left.
      for (let index = 0; index < 9; index += 1) await expect(methods.get({ taskId: TASK_ID }, legacy)).resolves.toMatchObject({ kind: 'task' });
      vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      await expect(methods.get({ taskId: TASK_ID }, legacy)).resolves.toMatchObject({ kind: 'error', status: 429 });
    });

    it('counts an anonymous caller by its legacy session', async () => {
      vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { limiter } = limited();
      const { bus } = fakeBus({ [taskScheduler.listTasks.subject]: Array.from({ length: 11 }, () => ({ tasks: [] })) });
      const methods = new TaskMethods(bus, new TaskResultStreams(), limiter, new SequentialIds('error'));
      const anonymous: Principal = { subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true };
      const first = inSession({ ...legacy, principal: anonymous }, 'session-1');
      for (let index = 0; index < 10; index += 1) await methods.list({}, first);
      await expect(methods.list({}, first)).resolves.toMatchObject({ kind: 'error', status: 429 });
      await expect(methods.list({}, inSession(first, 'session-2'))).resolves.toMatchObject({ kind: 'result' });
    });

    it('warns once a minute per requester, naming it but not its session', async () => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { limiter, advance } = limited();
      // Ten for alice, ten for bob, six for alice a minute on.
      const { bus, asked } = fakeBus({ [taskScheduler.listTasks.subject]: Array.from({ length: 26 }, () => ({ tasks: [] })) });
      const methods = new TaskMethods(bus, new TaskResultStreams(), limiter, new SequentialIds('error'));
      const withClient = { ...legacy, principal: { ...principal, clientId: 'client-1' } };
      for (let index = 0; index < 10; index += 1) await methods.list({}, withClient);
      for (let index = 0; index < 5; index += 1) await methods.list({}, withClient);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toBe(
        'tasks/list: subject alice of tenant demo (client client-1) exceeds 6 task operations per minute: refused with 429 (1 refused since the last warning)',
      );
      expect(String(warn.mock.calls[0]?.[0])).not.toContain('session-1');
      // Another requester gets its own warning.
      for (let index = 0; index < 11; index += 1) await methods.list({}, { ...withClient, principal: { ...principal, subject: 'bob' } });
      expect(warn).toHaveBeenCalledTimes(2);
      // A minute on, the first one is worth a warning again, with the refusals in between.
      advance(60_000);
      for (let index = 0; index < 7; index += 1) await methods.list({}, withClient);
      expect(warn).toHaveBeenCalledTimes(3);
      expect(asked).toHaveLength(26);
      expect(warn.mock.calls[2]?.[0]).toMatch(/subject alice .* \(5 refused since the last warning\)$/);
    });
  });
});
