import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { type INestApplication, Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EventPayload, type Principal, taskScheduler } from '@mcp-platform/protocol-contracts';
import { MessageBus, type MessagingOptions, type Worker, WorkQueue } from '@mcp-platform/shared-messaging';
import { errorOf } from '@mcp-platform/shared-testing';
import { bootScheduler, setups, stopScheduler, TestClock } from './task-scheduler.setups';

const run = `ta${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const user = (subject: string, tenant: string, clientId = 'app'): Principal => ({
  subject,
  tenant,
  clientId,
  scopes: ['tools', 'secret-scope'],
  anonymous: false,
});
const anonymous = (tenant: string): Principal => ({ subject: 'anonymous', tenant, scopes: [], anonymous: true });
const as = (principal: Principal) => ({ context: { principal } });
/** Arguments an administrator must never see. */
const SECRET_ARGUMENTS = { apiKey: 'sk-live-do-not-show' };
const result = { content: [{ type: 'text', text: 'the confidential result' }] };
const actor = { subject: 'admin-of-the-tenant' };

describe.each(setups(run))('TaskSchedulerModule tenant administration over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let messaging: MessagingOptions;
  let drop: (() => Promise<void>) | undefined;
  const clock = new TestClock();
  let worker: Worker;

  const create = (principal: Principal, extra: { name?: string; era?: 'legacy' | 'modern'; sessionId?: string; requestedTtlMs?: number } = {}) => {
    // A distinct creation instant for every task, so "newest first" is exactly the reverse creation order.
    clock.offsetMs += 2;
    return bus.request(
      taskScheduler.createTask,
      {
        era: extra.era ?? 'legacy',
        call: { tenant: principal.tenant, server: 'main', name: extra.name ?? 'idempotent', arguments: SECRET_ARGUMENTS, protocolVersion: '2025-11-25' },
        ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
        ...(extra.requestedTtlMs === undefined ? {} : { requestedTtlMs: extra.requestedTtlMs }),
      },
      as(principal),
    );
  };
  const list = (tenant: string, extra: { status?: taskScheduler.TaskStatus; cursor?: string } = {}) =>
    bus.request(taskScheduler.listTenantTasks, { tenant, ...extra });
  const cancel = (tenant: string, taskId: string) => bus.request(taskScheduler.cancelTenantTask, { tenant, taskId, actor });
  const claim = (taskId: string) =>
    bus.request(taskScheduler.claimTask, { taskId, attempt: 1, maxAttempts: 3, claimToken: randomBytes(9).toString('base64url') });
  const finish = (taskId: string) => bus.request(taskScheduler.finishTask, { taskId, ending: { outcome: { result } } });
  /** Every page of the tenant's list, in order. */
  const listAll = async (tenant: string, status?: taskScheduler.TaskStatus) => {
    const pages: taskScheduler.AdminTaskView[][] = [];
    let cursor: string | undefined;
    do {
      const page = await list(tenant, { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
      pages.push(page.tasks);
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    return pages;
  };

  beforeAll(async () => {
    const prepared = await setup.database();
    drop = prepared.drop;
    messaging = setup.messaging('a');
    app = await bootScheduler(messaging, prepared.options, { clock, tenantConcurrency: 8 });
    bus = app.get(MessageBus);
    // The jobs are taken and dropped: the tests play the worker with claims and finishes.
    worker = app.get(WorkQueue).work(taskScheduler.TOOL_TASKS_QUEUE, async () => 'done', { concurrency: 8, maxAttempts: 3 });
  });

  afterAll(() => stopScheduler(run, setup, app, worker, drop));

  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe('listTenantTasks', () => {
    it("lists every owner's tasks of the tenant, newest first, and no other tenant's", async () => {
      const alice = user('alice', 'acme-list');
      const bob = user('bob', 'acme-list', 'other-app');
      const first = await create(alice);
      const second = await create(bob, { era: 'modern', name: 'effectful' });
      const third = await create(anonymous('acme-list'), { sessionId: 'anonymous-session' });
      const elsewhere = await create(user('alice', 'globex-list'));

      const { tasks, nextCursor } = await list('acme-list');
      expect(nextCursor).toBeUndefined();
      expect(tasks.map((task) => task.taskId)).toEqual([third.taskId, second.taskId, first.taskId]);
      expect(tasks.map((task) => task.taskId)).not.toContain(elsewhere.taskId);
      expect(tasks[1]).toEqual({
        ...second,
        server: 'main',
        tool: 'effectful',
        era: 'modern',
        owner: { subject: 'bob', clientId: 'other-app', anonymous: false },
        runsStarted: 0,
        idempotent: false,
      });
      expect(tasks[0]?.owner).toEqual({ subject: 'anonymous', anonymous: true });
      expect(tasks[2]).toMatchObject({ tool: 'idempotent', era: 'legacy', idempotent: true, owner: { subject: 'alice', clientId: 'app', anonymous: false } });
      expect((await list('globex-list')).tasks.map((task) => task.taskId)).toEqual([elsewhere.taskId]);
      expect(await list('nobody-here')).toEqual({ tasks: [] });
    });

    it("never shows the call's arguments, the outcome or the owner's scopes", async () => {
      const carol = user('carol', 'acme-secrets');
      const { taskId } = await create(carol);
      await claim(taskId);
      await finish(taskId);
      const listed = await list('acme-secrets');
      expect(listed.tasks).toEqual([expect.objectContaining({ taskId, status: 'completed', runsStarted: 1 })]);
      const text = JSON.stringify(listed);
      for (const secret of ['sk-live-do-not-show', 'apiKey', 'the confidential result', 'secret-scope', 'arguments', 'outcome', 'principal'])
        expect(text).not.toContain(secret);
    });

    it('keeps only the tasks in the status asked for', async () => {
      const dave = user('dave', 'acme-status');
      const working = await create(dave);
      const completed = await create(dave);
      await claim(completed.taskId);
      await finish(completed.taskId);
      const cancelled = await create(dave);
      await cancel('acme-status', cancelled.taskId);

      expect((await list('acme-status', { status: 'working' })).tasks.map((task) => task.taskId)).toEqual([working.taskId]);
      expect((await list('acme-status', { status: 'completed' })).tasks.map((task) => task.taskId)).toEqual([completed.taskId]);
      expect((await list('acme-status', { status: 'cancelled' })).tasks.map((task) => task.taskId)).toEqual([cancelled.taskId]);
      expect((await list('acme-status', { status: 'failed' })).tasks).toEqual([]);
      expect((await list('acme-status')).tasks).toHaveLength(3);
    });

    it('pages 50 at a time with a keyset cursor, each task once, with or without a status', async () => {
      const owners = [user('erin', 'acme-paging'), user('frank', 'acme-paging')];
      const created: string[] = [];
      for (let index = 0; index < 53; index += 1) created.push((await create(owners[index % 2] as Principal)).taskId);
      const done = created.slice(0, 2);
      for (const taskId of done) await cancel('acme-paging', taskId);

      const pages = await listAll('acme-paging');
      expect(pages.map((page) => page.length)).toEqual([50, 3]);
      const listed = pages.flat();
      expect(listed.map((task) => task.taskId)).toEqual([...created].reverse());
      const times = listed.map((task) => Date.parse(task.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));

      const working = (await listAll('acme-paging', 'working')).flat().map((task) => task.taskId);
      expect(working).toEqual([...created].reverse().filter((taskId) => !done.includes(taskId)));
      expect(await list('acme-paging', { status: 'working' })).toMatchObject({ nextCursor: expect.any(String) });
      expect(await list('acme-paging', { status: 'cancelled' })).not.toHaveProperty('nextCursor');
    });

    it('refuses a cursor it did not mint', async () => {
      expect(await errorOf(list('acme-list', { cursor: 'garbage!' }))).toMatchObject({ code: 'INVALID_PARAMS', message: 'Invalid cursor' });
    });

    it('leaves expired tasks out', async () => {
      const gina = user('gina', 'acme-expiry');
      const shortLived = await create(gina, { requestedTtlMs: 10_000 });
      const longLived = await create(gina, { requestedTtlMs: 120_000 });
      clock.offsetMs += 11_000;
      expect((await list('acme-expiry')).tasks.map((task) => task.taskId)).toEqual([longLived.taskId]);
      expect(await errorOf(cancel('acme-expiry', shortLived.taskId))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
    });
  });

  describe('cancelTenantTask (S-283)', () => {
    it('stores cancelled before answering, announces it as the owner’s cancel does, and a later finish leaves it cancelled', async () => {
      const henry = user('henry', 'acme-cancel');
      const { taskId } = await create(henry, { sessionId: 'session-of-henry' });
      await claim(taskId);
      const events: Array<EventPayload<typeof taskScheduler.taskStatusChanged>> = [];
      const subscription = bus.subscribe(taskScheduler.taskStatusChanged, (payload) => {
        if (payload.task.taskId === taskId) events.push(payload);
      });
      await bus.flush();
      try {
        const cancelled = await cancel('acme-cancel', taskId);
        expect(cancelled).toMatchObject({
          taskId,
          status: 'cancelled',
          statusMessage: 'The task was cancelled by an administrator',
          tool: 'idempotent',
          owner: { subject: 'henry', clientId: 'app', anonymous: false },
          runsStarted: 1,
        });
        // Stored before the answer: the owner reads it at once.
        expect((await bus.request(taskScheduler.getTask, { taskId }, as(henry))).task).toMatchObject({
          status: 'cancelled',
          statusMessage: 'The task was cancelled by an administrator',
        });
        await expect.poll(() => events.length).toBeGreaterThan(0);
        expect(events[0]).toEqual({
          task: {
            taskId,
            status: 'cancelled',
            statusMessage: 'The task was cancelled by an administrator',
            createdAt: cancelled.createdAt,
            lastUpdatedAt: cancelled.lastUpdatedAt,
            ttlMs: cancelled.ttlMs,
            pollIntervalMs: cancelled.pollIntervalMs,
          },
          tenant: 'acme-cancel',
          sessionId: 'session-of-henry',
          era: 'legacy',
          owner: { subject: 'henry', clientId: 'app', anonymous: false },
        });
      } finally {
        subscription.unsubscribe();
      }
      await finish(taskId);
      expect(await bus.request(taskScheduler.getTask, { taskId }, as(henry))).toEqual({ task: expect.objectContaining({ status: 'cancelled' }) as unknown });
      expect((await list('acme-cancel', { status: 'cancelled' })).tasks.map((task) => task.taskId)).toContain(taskId);
    });

    it('cancels a modern task waiting for input, dropping its input requests', async () => {
      const ivy = user('ivy', 'acme-cancel');
      const { taskId } = await create(ivy, { era: 'modern' });
      await claim(taskId);
      await bus.request(taskScheduler.finishTask, {
        taskId,
        ending: { inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } } },
      });
      const cancelled = await cancel('acme-cancel', taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled).not.toHaveProperty('inputRequests');
    });

    it('refuses a terminal task with INVALID_PARAMS and leaves it as it was', async () => {
      const jack = user('jack', 'acme-cancel');
      const { taskId } = await create(jack);
      await claim(taskId);
      await finish(taskId);
      expect(await errorOf(cancel('acme-cancel', taskId))).toMatchObject({ code: 'INVALID_PARAMS', message: 'Task is already completed' });
      expect(await bus.request(taskScheduler.getTask, { taskId }, as(jack))).toMatchObject({ task: { status: 'completed' }, outcome: { result } });
      const again = await create(jack);
      await cancel('acme-cancel', again.taskId);
      expect(await errorOf(cancel('acme-cancel', again.taskId))).toMatchObject({ code: 'INVALID_PARAMS', message: 'Task is already cancelled' });
    });

    it('answers NOT_FOUND for an unknown task and for a task of another tenant, which stays as it was', async () => {
      const kate = user('kate', 'globex-cancel');
      const { taskId } = await create(kate);
      expect(await errorOf(cancel('acme-cancel', taskId))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
      expect(await errorOf(cancel('acme-cancel', 'AAAAAAAAAAAAAAAAAAAAAA'))).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
      expect((await bus.request(taskScheduler.getTask, { taskId }, as(kate))).task.status).toBe('working');
    });

    it('writes an audit line naming the task, its owner and the administrator', async () => {
      const log = vi.spyOn(Logger.prototype, 'log');
      const { taskId } = await create(user('liam', 'acme-audit'));
      await cancel('acme-audit', taskId);
      const lines = log.mock.calls.map(([message]) => String(message)).filter((message) => message.startsWith(`task cancelled: id=${taskId} `));
      expect(lines).toEqual([`task cancelled: id=${taskId} tenant=acme-audit subject="liam" client="app" by-admin="admin-of-the-tenant"`]);
    });
  });

  describe('deleteTenantTasks', () => {
    it("deletes every task of a deleted tenant, no other tenant's, and announces the unfinished ones cancelled so their runs stop", async () => {
      const mia = user('mia', 'acme-gone');
      const running = await create(mia);
      await claim(running.taskId);
      const done = await create(mia);
      await claim(done.taskId);
      await finish(done.taskId);
      const elsewhere = await create(user('mia', 'globex-stays'));
      const events: Array<EventPayload<typeof taskScheduler.taskStatusChanged>> = [];
      const subscription = bus.subscribe(taskScheduler.taskStatusChanged, (payload) => {
        if (payload.tenant === 'acme-gone') events.push(payload);
      });
      await bus.flush();
      try {
        await expect(bus.request(taskScheduler.deleteTenantTasks, { tenant: 'acme-gone' })).resolves.toEqual({ deleted: 2 });
        await expect.poll(() => events.map((event) => [event.task.taskId, event.task.status])).toEqual([[running.taskId, 'cancelled']]);
      } finally {
        subscription.unsubscribe();
      }
      expect(await list('acme-gone')).toEqual({ tasks: [] });
      expect((await errorOf(bus.request(taskScheduler.getTask, { taskId: done.taskId }, as(mia)))).code).toBe('NOT_FOUND');
      // The run of the deleted task finds nothing to finish.
      await expect(finish(running.taskId)).resolves.toEqual({});
      expect((await list('globex-stays')).tasks.map((task) => task.taskId)).toEqual([elsewhere.taskId]);
      await expect(bus.request(taskScheduler.deleteTenantTasks, { tenant: 'acme-gone' })).resolves.toEqual({ deleted: 0 });
    });
  });
});
