import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventPayload, type Principal, taskScheduler } from '@mcp-platform/protocol-contracts';
import { type Job, MessageBus, type MessagingOptions, type Worker, WorkQueue } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { errorOf } from '@mcp-platform/shared-testing';
import { TasksRepository } from '../src/store/tasks.repository';
import { TASK_SETTINGS, type TaskSettings } from '../src/tasks/task-settings';
import { TasksService } from '../src/tasks/tasks.service';
import { bootScheduler, type FlakyWorkQueue, setups, stopScheduler, TestClock } from './task-scheduler.setups';

const run = `ts${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/** Small, so the limit is cheap to reach. */
const TENANT_CONCURRENCY = 2;

const user = (subject: string, tenant = 'acme'): Principal => ({ subject, tenant, clientId: 'app', scopes: ['tools'], anonymous: false });
const anonymous = (tenant = 'acme'): Principal => ({ subject: 'anonymous', tenant, scopes: [], anonymous: true });
const as = (principal: Principal) => ({ context: { principal } });
const callOf = (name: string, tenant = 'acme') => ({ tenant, server: 'main', name, arguments: { n: 1 }, protocolVersion: '2025-11-25' });
const result = { content: [{ type: 'text', text: 'done' }] };

describe.each(setups(run))('TaskSchedulerModule over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let messaging: MessagingOptions;
  let database: DatabaseOptions;
  let drop: (() => Promise<void>) | undefined;
  const clock = new TestClock();
  /** The jobs the queue handed out, as the tool executor's worker would receive them. */
  const jobs: Job[] = [];
  let worker: Worker;

  const create = (
    principal: Principal,
    name = 'idempotent',
    extra: { era?: 'legacy' | 'modern'; sessionId?: string; requestedTtlMs?: number; tenant?: string } = {},
  ) =>
    bus.request(
      taskScheduler.createTask,
      {
        era: extra.era ?? 'legacy',
        call: callOf(name, extra.tenant ?? principal.tenant),
        ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
        ...(extra.requestedTtlMs === undefined ? {} : { requestedTtlMs: extra.requestedTtlMs }),
      },
      as(principal),
    );
  const get = (taskId: string, principal: Principal, sessionId?: string) =>
    bus.request(taskScheduler.getTask, { taskId, ...(sessionId ? { sessionId } : {}) }, as(principal));
  /** A claim of a new delivery (its own token), or `claimToken`'s again. */
  const claim = (taskId: string, attempt = 1, maxAttempts = 3, claimToken = randomBytes(9).toString('base64url')) =>
    bus.request(taskScheduler.claimTask, { taskId, attempt, maxAttempts, claimToken });
  const finish = (taskId: string, ending: Parameters<TasksService['finish']>[1]) => bus.request(taskScheduler.finishTask, { taskId, ending });
  const jobsOf = (taskId: string) => jobs.filter((job) => job.data === taskId);

  beforeAll(async () => {
    const prepared = await setup.database();
    drop = prepared.drop;
    database = prepared.options;
    messaging = setup.messaging('a');
    app = await bootScheduler(messaging, database, { clock, tenantConcurrency: TENANT_CONCURRENCY });
    bus = app.get(MessageBus);
    worker = app.get(WorkQueue).work(taskScheduler.TOOL_TASKS_QUEUE, async (job) => (jobs.push(job), 'done'), { concurrency: 8, maxAttempts: 3 });
  });

  afterAll(() => stopScheduler(run, setup, app, worker, drop));

  describe('createTask', () => {
    it('stores a working task with bounded TTLs and queues its run under the task id', async () => {
      const alice = user('alice-create');
      const task = await create(alice);
      expect(task).toMatchObject({ status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1_000 });
      expect(task.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Date.parse(task.createdAt)).toBeGreaterThan(Date.now() - 60_000);
      await expect.poll(() => jobsOf(task.taskId)).toEqual([{ id: task.taskId, data: task.taskId, attempt: 1 }]);
      expect((await create(alice, 'idempotent', { requestedTtlMs: 10 * 86_400_000 })).ttlMs).toBe(86_400_000);
      expect((await create(alice, 'idempotent', { requestedTtlMs: 1 })).ttlMs).toBe(10_000);
      expect((await create(alice, 'idempotent', { requestedTtlMs: 120_000 })).ttlMs).toBe(120_000);
    });

    it('refuses a principal of another tenant, a tool that forbids tasks, and passes the executor’s refusals on', async () => {
      expect(await errorOf(create(user('mallory', 'globex'), 'idempotent', { tenant: 'acme' }))).toMatchObject({ code: 'FORBIDDEN' });
      expect(await errorOf(create(user('alice-create'), 'plain'))).toMatchObject({ code: 'UNSUPPORTED', message: 'Tool plain does not support tasks' });
      expect(await errorOf(create(user('alice-create'), 'nonexistent'))).toMatchObject({ code: 'INVALID_PARAMS', message: 'Unknown tool: nonexistent' });
      expect(await errorOf(bus.request(taskScheduler.createTask, { era: 'legacy', call: callOf('idempotent') }))).toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('a task’s life', () => {
    it('runs once claimed and is completed with the outcome its run finished with', async () => {
      const alice = user('alice-life');
      const { taskId } = await create(alice);
      expect(await claim(taskId)).toEqual({ action: 'run', call: callOf('idempotent'), principal: alice });
      expect((await get(taskId, alice)).task.status).toBe('working');
      const events: Array<EventPayload<typeof taskScheduler.taskStatusChanged>> = [];
      const subscription = bus.subscribe(taskScheduler.taskStatusChanged, (payload) => {
        if (payload.task.taskId === taskId) events.push(payload);
      });
      await bus.flush();
      try {
        expect(await finish(taskId, { outcome: { result } })).toEqual({});
        const state = await get(taskId, alice);
        expect(state).toEqual({ task: expect.objectContaining({ taskId, status: 'completed' }) as unknown, outcome: { result } });
        expect(state.task).not.toHaveProperty('statusMessage');
        expect(Date.parse(state.task.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(state.task.createdAt));
        await expect.poll(() => events.length).toBeGreaterThan(0);
        expect(events[0]).toEqual({
          task: state.task,
          tenant: 'acme',
          era: 'legacy',
          owner: { subject: alice.subject, clientId: alice.clientId, anonymous: false },
        });
      } finally {
        subscription.unsubscribe();
      }
      // A job delivered again after the task ended has nothing to run.
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });
    });

    it('fails a legacy task whose call answered an error, with its message', async () => {
      const alice = user('alice-life');
      const { taskId } = await create(alice);
      await claim(taskId);
      await finish(taskId, { outcome: { error: { code: 'FORBIDDEN', message: 'no access to the tool' } } });
      expect(await get(taskId, alice)).toEqual({
        task: expect.objectContaining({ status: 'failed', statusMessage: 'no access to the tool' }) as unknown,
        outcome: { error: { code: 'FORBIDDEN', message: 'no access to the tool' } },
      });
    });

    it('tells the session a task was created through when its status changes', async () => {
      const alice = user('alice-life');
      const { taskId } = await create(alice, 'idempotent', { sessionId: 'session-of-alice' });
      const events: Array<EventPayload<typeof taskScheduler.taskStatusChanged>> = [];
      const subscription = bus.subscribe(taskScheduler.taskStatusChanged, (payload) => {
        if (payload.task.taskId === taskId) events.push(payload);
      });
      await bus.flush();
      try {
        await bus.request(taskScheduler.cancelTask, { taskId }, as(alice));
        await expect.poll(() => events.length).toBeGreaterThan(0);
        expect(events[0]).toMatchObject({ tenant: 'acme', sessionId: 'session-of-alice', task: { status: 'cancelled' } });
      } finally {
        subscription.unsubscribe();
      }
      // An authenticated caller's task is not bound to the session it came through.
      expect((await get(taskId, alice)).task.status).toBe('cancelled');
    });
  });

  describe('ownership (S-289, S-290)', () => {
    it('shows a task to its owner only: another subject, client or tenant is told it does not exist', async () => {
      const owner = user('olivia');
      const { taskId } = await create(owner);
      for (const stranger of [user('oscar'), { ...owner, clientId: 'other-app' }, user('olivia', 'globex')]) {
        expect(await errorOf(get(taskId, stranger))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
        expect(await errorOf(bus.request(taskScheduler.awaitTask, { taskId, waitMs: 0 }, as(stranger)))).toMatchObject({ code: 'NOT_FOUND' });
        expect(await errorOf(bus.request(taskScheduler.cancelTask, { taskId }, as(stranger)))).toMatchObject({ code: 'NOT_FOUND' });
        expect(await errorOf(bus.request(taskScheduler.updateTask, { taskId, inputResponses: {} }, as(stranger)))).toMatchObject({ code: 'NOT_FOUND' });
      }
      expect(await errorOf(get('AAAAAAAAAAAAAAAAAAAAAA', owner))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
      expect((await get(taskId, owner)).task.status).toBe('working');
    });

    it('binds an anonymous caller’s task to its session', async () => {
      const { taskId } = await create(anonymous(), 'idempotent', { sessionId: 'anonymous-session-1' });
      expect((await get(taskId, anonymous(), 'anonymous-session-1')).task.taskId).toBe(taskId);
      expect(await errorOf(get(taskId, anonymous(), 'anonymous-session-2'))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await errorOf(get(taskId, anonymous()))).toMatchObject({ code: 'NOT_FOUND' });
      const listed = await bus.request(taskScheduler.listTasks, { tenant: 'acme', sessionId: 'anonymous-session-1' }, as(anonymous()));
      expect(listed.tasks.map((task) => task.taskId)).toEqual([taskId]);
      expect((await bus.request(taskScheduler.listTasks, { tenant: 'acme', sessionId: 'anonymous-session-2' }, as(anonymous()))).tasks).toEqual([]);
      expect(await errorOf(bus.request(taskScheduler.listTasks, { tenant: 'acme' }, as(anonymous())))).toMatchObject({ code: 'FORBIDDEN' });
    });

    it('lists only the caller’s tasks, newest first, 50 a page, each once', async () => {
      const lister = user('lister');
      const created: string[] = [];
      for (let index = 0; index < 53; index += 1) created.push((await create(lister)).taskId);
      const other = await create(user('not-the-lister'));
      const first = await bus.request(taskScheduler.listTasks, { tenant: 'acme' }, as(lister));
      expect(first.tasks).toHaveLength(50);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await bus.request(taskScheduler.listTasks, { tenant: 'acme', cursor: first.nextCursor }, as(lister));
      expect(second.nextCursor).toBeUndefined();
      const listed = [...first.tasks, ...second.tasks].map((task) => task.taskId);
      expect(new Set(listed)).toEqual(new Set(created));
      expect(listed).toHaveLength(53);
      expect(listed).not.toContain(other.taskId);
      const times = [...first.tasks, ...second.tasks].map((task) => Date.parse(task.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(await errorOf(bus.request(taskScheduler.listTasks, { tenant: 'acme', cursor: 'garbage!' }, as(lister)))).toMatchObject({ code: 'INVALID_PARAMS' });
      expect(await errorOf(bus.request(taskScheduler.listTasks, { tenant: 'globex' }, as(lister)))).toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('cancelTask (S-283)', () => {
    it('cancels a working task before answering, and a later finish leaves it cancelled without outcome', async () => {
      const carol = user('carol');
      const { taskId } = await create(carol);
      await claim(taskId);
      const cancelled = await bus.request(taskScheduler.cancelTask, { taskId }, as(carol));
      expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      expect((await get(taskId, carol)).task.status).toBe('cancelled');
      await finish(taskId, { outcome: { result } });
      expect(await get(taskId, carol)).toEqual({ task: expect.objectContaining({ status: 'cancelled' }) as unknown });
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });
      expect(await errorOf(bus.request(taskScheduler.cancelTask, { taskId }, as(carol)))).toMatchObject({
        code: 'INVALID_PARAMS',
        message: 'Task is already cancelled',
      });
    });

    it('refuses to cancel a finished task', async () => {
      const carol = user('carol');
      const { taskId } = await create(carol);
      await claim(taskId);
      await finish(taskId, { outcome: { result } });
      expect(await errorOf(bus.request(taskScheduler.cancelTask, { taskId }, as(carol)))).toMatchObject({
        code: 'INVALID_PARAMS',
        message: 'Task is already completed',
      });
      expect((await get(taskId, carol)).outcome).toEqual({ result });
    });
  });

  describe('claimTask', () => {
    it('runs an idempotent tool again when its earlier run was cut short', async () => {
      const dave = user('dave');
      const { taskId } = await create(dave, 'idempotent');
      expect(await claim(taskId, 1)).toMatchObject({ action: 'run' });
      expect(await claim(taskId, 2)).toMatchObject({ action: 'run' });
      expect(await app.get(TasksRepository).find(taskId)).toMatchObject({ runOpen: true, runsStarted: 2, attemptsSeen: 2 });
      await finish(taskId, { outcome: { result } });
    });

    it('answers the same claim again when its answer was lost, without starting another run', async () => {
      const alice = user('alice-claims');
      const { taskId } = await create(alice, 'effectful');
      expect(await claim(taskId, 1, 3, 'claim-token-1')).toMatchObject({ action: 'run' });
      expect(await claim(taskId, 1, 3, 'claim-token-1')).toMatchObject({ action: 'run' });
      const after = await app.get(TasksRepository).find(taskId);
      expect(after).toMatchObject({ runOpen: true, runsStarted: 1, status: 'working' });
      // Another delivery finds the run open: the tool is not idempotent, so the task fails.
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });
      expect((await get(taskId, alice)).task.status).toBe('failed');
    });

    it('fails a non-idempotent tool’s task whose run was cut short instead of running it again', async () => {
      const dave = user('dave');
      const { taskId } = await create(dave, 'effectful');
      expect(await claim(taskId, 1)).toMatchObject({ action: 'run' });
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });
      expect((await get(taskId, dave)).task).toMatchObject({
        status: 'failed',
        statusMessage: 'The worker running this task stopped before it finished; the tool is not idempotent, so it was not run again',
      });
    });

    it('fails a task whose work was delivered as often as the queue allows', async () => {
      const dave = user('dave');
      const { taskId } = await create(dave, 'idempotent');
      expect(await claim(taskId, 4, 3)).toEqual({ action: 'skip' });
      expect((await get(taskId, dave)).task).toMatchObject({ status: 'failed', statusMessage: "The task's work was delivered 3 times and never finished" });
    });

    it('asks to retry while the tenant has as many runs in progress as it may', async () => {
      const busy = user('erin', 'busy');
      const taskIds: string[] = [];
      for (let index = 0; index < TENANT_CONCURRENCY + 1; index += 1) taskIds.push((await create(busy)).taskId);
      const [first, second, third] = taskIds as [string, string, string];
      expect(await claim(first)).toMatchObject({ action: 'run' });
      expect(await claim(second)).toMatchObject({ action: 'run' });
      expect(await claim(third)).toEqual({ action: 'retry', afterMs: 1_000 });
      // Another tenant is not held back.
      const other = (await create(user('frank'))).taskId;
      expect(await claim(other)).toMatchObject({ action: 'run' });
      await finish(other, { outcome: { result } });
      await finish(first, { outcome: { result } });
      expect(await claim(third, 2)).toMatchObject({ action: 'run' });
      // A cancelled run frees its slot at once.
      await bus.request(taskScheduler.cancelTask, { taskId: second }, as(busy));
      const fourth = (await create(busy)).taskId;
      expect(await claim(fourth)).toMatchObject({ action: 'run' });
    });
  });

  describe('legacy input (S-286)', () => {
    it('is input_required while its run waits for the client, working again once answered, and the run still finishes it', async () => {
      const alice = user('alice-input');
      const { taskId } = await create(alice, 'idempotent', { sessionId: 'session-of-alice' });
      expect(await claim(taskId)).toMatchObject({ action: 'run', sessionId: 'session-of-alice' });
      const report = (waiting: boolean) => bus.request(taskScheduler.reportTaskInput, { taskId, waiting });
      expect(await report(true)).toEqual({});
      expect((await get(taskId, alice)).task).toMatchObject({
        status: 'input_required',
        statusMessage: 'The task is waiting for its client to answer a request',
      });
      expect(await report(false)).toEqual({});
      expect((await get(taskId, alice)).task.status).toBe('working');
      await report(true);
      // The run may end while a request still waits (the tool gave up on it): the ending counts.
      await finish(taskId, { outcome: { result } });
      expect((await get(taskId, alice)).task.status).toBe('completed');
      // A finished task's status never changes (S-278).
      await report(false);
      expect((await get(taskId, alice)).task.status).toBe('completed');
    });

    it("shows a working run's progress as its status message, and only while it works", async () => {
      const alice = user('alice-input');
      const { taskId } = await create(alice, 'idempotent', { sessionId: 'session-of-alice' });
      const progress = (statusMessage: string) => bus.request(taskScheduler.reportTaskProgress, { taskId, statusMessage });
      // Before any run, nothing changes.
      await progress('too early');
      expect((await get(taskId, alice)).task).not.toHaveProperty('statusMessage');
      await claim(taskId);
      await progress('Step 2 of 5');
      const working = (await get(taskId, alice)).task;
      expect(working).toMatchObject({ status: 'working', statusMessage: 'Step 2 of 5' });
      await bus.request(taskScheduler.reportTaskInput, { taskId, waiting: true });
      await progress('Step 3 of 5');
      expect((await get(taskId, alice)).task).toMatchObject({
        status: 'input_required',
        statusMessage: 'The task is waiting for its client to answer a request',
      });
      await finish(taskId, { outcome: { result } });
      await progress('Step 5 of 5');
      expect((await get(taskId, alice)).task).toMatchObject({ status: 'completed' });
      expect((await get(taskId, alice)).task).not.toHaveProperty('statusMessage');
    });

    it('runs again a task whose worker died while it waited for input, working again (idempotent tool)', async () => {
      const alice = user('alice-input');
      const { taskId } = await create(alice, 'idempotent', { sessionId: 'session-of-alice' });
      await claim(taskId);
      await bus.request(taskScheduler.reportTaskInput, { taskId, waiting: true });
      expect(await claim(taskId, 2)).toMatchObject({ action: 'run' });
      expect((await get(taskId, alice)).task.status).toBe('working');
    });
  });

  describe('modern input requests (S-300, S-301)', () => {
    it('waits for input, takes the answers to outstanding keys, and runs again with them under a new job', async () => {
      const grace = user('grace');
      const { taskId } = await create(grace, 'idempotent', { era: 'modern' });
      await claim(taskId);
      const inputRequests = { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } };
      await finish(taskId, { inputRequests });
      expect((await get(taskId, grace)).task).toMatchObject({ status: 'input_required', inputRequests });
      // The job that asked is done; a stray delivery of it has nothing to run.
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });
      // Answers to keys not asked change nothing.
      expect(await bus.request(taskScheduler.updateTask, { taskId, inputResponses: { other: 1 } }, as(grace))).toEqual({});
      expect((await get(taskId, grace)).task.status).toBe('input_required');

      expect(await bus.request(taskScheduler.updateTask, { taskId, inputResponses: { confirm: { action: 'accept' }, other: 1 } }, as(grace))).toEqual({});
      const resumed = (await get(taskId, grace)).task;
      expect(resumed.status).toBe('working');
      expect(resumed).not.toHaveProperty('inputRequests');
      await expect.poll(() => jobsOf(taskId).length).toBe(2);
      const rerun = jobsOf(taskId)[1];
      expect(rerun?.id).not.toBe(taskId);
      expect(rerun?.id.startsWith(`${taskId}.`)).toBe(true);
      expect(await claim(taskId, 1)).toEqual({
        action: 'run',
        call: callOf('idempotent'),
        principal: grace,
        inputResponses: { confirm: { action: 'accept' } },
      });
      // Not waiting for input: acknowledged, nothing changes.
      expect(await bus.request(taskScheduler.updateTask, { taskId, inputResponses: { confirm: 'again' } }, as(grace))).toEqual({});

      // Modern era (S-303): a tool error is a completed task with that result.
      const toolError = { content: [{ type: 'text', text: 'nope' }], isError: true };
      await finish(taskId, { outcome: { result: toolError } });
      expect(await get(taskId, grace)).toEqual({ task: expect.objectContaining({ status: 'completed' }) as unknown, outcome: { result: toolError } });
    });
  });

  describe('input before the task and partial answers (issue 14 §2.4, SEP-2663)', () => {
    it('stores the answers a call gathered before its task, and its first run gets them', async () => {
      const heidi = user('heidi');
      const gathered = { user_name: { action: 'accept', content: { name: 'Alice' } } };
      const { taskId } = await bus.request(taskScheduler.createTask, { era: 'modern', call: callOf('idempotent'), inputResponses: gathered }, as(heidi));
      expect((await get(taskId, heidi)).task).toMatchObject({ status: 'working' });
      expect(await claim(taskId)).toEqual({ action: 'run', call: callOf('idempotent'), principal: heidi, inputResponses: gathered });
      // Its run ends, so the tenant's concurrency is free for the next test.
      await finish(taskId, { outcome: { result } });
    });

    it('stays input_required, asking only the rest, until every request has its answer, then runs with all of them', async () => {
      const ivan = user('ivan');
      const { taskId } = await create(ivan, 'idempotent', { era: 'modern' });
      await claim(taskId);
      const ask = { method: 'elicitation/create', params: { message: 'Name?' } };
      await finish(taskId, { inputRequests: { first: ask, second: ask } });
      await expect.poll(() => jobsOf(taskId).length).toBe(1);

      expect(
        await bus.request(taskScheduler.updateTask, { taskId, inputResponses: { first: { action: 'accept', content: { name: 'p1' } } } }, as(ivan)),
      ).toEqual({});
      expect((await get(taskId, ivan)).task).toMatchObject({ status: 'input_required', inputRequests: { second: ask } });
      // Nothing runs while an answer is missing.
      expect(await claim(taskId, 2)).toEqual({ action: 'skip' });

      expect(await bus.request(taskScheduler.updateTask, { taskId, inputResponses: { second: { action: 'decline' } } }, as(ivan))).toEqual({});
      expect((await get(taskId, ivan)).task.status).toBe('working');
      await expect.poll(() => jobsOf(taskId).length).toBe(2);
      expect(await claim(taskId, 1)).toEqual({
        action: 'run',
        call: callOf('idempotent'),
        principal: ivan,
        inputResponses: { first: { action: 'accept', content: { name: 'p1' } }, second: { action: 'decline' } },
      });
      await finish(taskId, { outcome: { result } });
    });
  });

  describe('awaitTask (S-281)', () => {
    it('answers a finished task at once, and a working one after its wait', async () => {
      const henry = user('henry');
      const { taskId } = await create(henry);
      const started = Date.now();
      expect((await bus.request(taskScheduler.awaitTask, { taskId, waitMs: 300 }, as(henry))).task.status).toBe('working');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      await claim(taskId);
      await finish(taskId, { outcome: { result } });
      const answered = Date.now();
      expect(await bus.request(taskScheduler.awaitTask, { taskId, waitMs: 10_000 }, as(henry))).toMatchObject({
        task: { status: 'completed' },
        outcome: { result },
      });
      expect(Date.now() - answered).toBeLessThan(1_000);
    });

    it('returns as soon as this replica finishes the task', async () => {
      const henry = user('henry');
      const { taskId } = await create(henry);
      await claim(taskId);
      const waiting = bus.request(taskScheduler.awaitTask, { taskId, waitMs: 20_000 }, as(henry));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const finished = Date.now();
      await finish(taskId, { outcome: { result } });
      expect((await waiting).task.status).toBe('completed');
      expect(Date.now() - finished).toBeLessThan(1_500);
    });
  });

  describe('expiry (S-279)', () => {
    it('forgets a task once its TTL passed, and the sweep deletes its row', async () => {
      const ivy = user('ivy');
      const { taskId } = await create(ivy, 'idempotent', { requestedTtlMs: 10_000 });
      const repository = app.get(TasksRepository);
      clock.offsetMs = 11_000;
      try {
        expect(await errorOf(get(taskId, ivy))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
        expect((await bus.request(taskScheduler.listTasks, { tenant: 'acme' }, as(ivy))).tasks).toEqual([]);
        expect(await claim(taskId)).toEqual({ action: 'skip' });
        expect(await repository.find(taskId)).toBeDefined();
        expect(await app.get(TasksService).sweepExpired()).toBeGreaterThanOrEqual(1);
        expect(await repository.find(taskId)).toBeUndefined();
      } finally {
        clock.offsetMs = 0;
      }
    });
  });

  describe.runIf(setup.name === 'in-process + PGlite')('embedded mode', () => {
    it('answers UNAVAILABLE and keeps no task when its run cannot be queued', async () => {
      const judy = user('judy');
      const before = (await bus.request(taskScheduler.listTasks, { tenant: 'acme' }, as(judy))).tasks;
      (app.get(WorkQueue) as FlakyWorkQueue).failNext = true;
      expect(await errorOf(create(judy))).toMatchObject({ code: 'UNAVAILABLE' });
      expect((await bus.request(taskScheduler.listTasks, { tenant: 'acme' }, as(judy))).tasks).toEqual(before);
    });

    it('queues every working task again when it boots (the memory queue lost their jobs)', async () => {
      const kim = user('kim');
      const working = await create(kim);
      const done = await create(kim);
      await claim(done.taskId);
      await finish(done.taskId, { outcome: { result } });
      // A restarted process: a new bus and memory queue, the same database.
      const restartedMessaging = setup.messaging('b');
      const restarted = await bootScheduler(restartedMessaging, database, { clock, tenantConcurrency: TENANT_CONCURRENCY });
      const requeued: Job[] = [];
      const restartedWorker = restarted
        .get(WorkQueue)
        .work(taskScheduler.TOOL_TASKS_QUEUE, async (job) => (requeued.push(job), 'done'), { concurrency: 8, maxAttempts: 3 });
      try {
        expect(restarted.get<TaskSettings>(TASK_SETTINGS).requeueOnBoot).toBe(true);
        await expect.poll(() => requeued.some((job) => job.data === working.taskId)).toBe(true);
        expect(requeued.some((job) => job.data === done.taskId)).toBe(false);
      } finally {
        await restartedWorker.stop();
        await restarted.close();
      }
    });
  });

  describe.runIf(setup.name === 'NATS + PostgreSQL')('two replicas', () => {
    let replica: INestApplication;

    beforeAll(async () => {
      replica = await bootScheduler(setup.messaging('b'), database, { clock, tenantConcurrency: TENANT_CONCURRENCY });
    });

    afterAll(async () => {
      await replica?.close();
    });

    it('does not queue working tasks again at boot: JetStream kept their jobs', () => {
      expect(replica.get<TaskSettings>(TASK_SETTINGS).requeueOnBoot).toBe(false);
    });

    it('wakes an awaitTask on one replica when the other finishes the task', async () => {
      const liam = user('liam');
      const { taskId } = await create(liam);
      await claim(taskId);
      const waiting = app.get(TasksService).await(taskId, 20_000, liam, undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const finished = Date.now();
      await replica.get(TasksService).finish(taskId, { outcome: { result } });
      expect(await waiting).toMatchObject({ task: { status: 'completed' }, outcome: { result } });
      // Woken by the event, well before the 2 s re-read would have seen it.
      expect(Date.now() - finished).toBeLessThan(1_500);
    });
  });
});
