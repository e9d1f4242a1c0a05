import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import { FakeTarget } from '../../test/fake-response-target';
import { LazyResponse } from '../streams/lazy-response';
import { KEEP_ALIVE_MS } from '../streams/stream-expiry';
import { listensAsOwner, ListenStreams, type TaskOwner } from './listen-streams.registry';
import { type HonouredFilter, readSubscriptionFilter } from './subscription-filter';

const ID_KEY = 'io.modelcontextprotocol/subscriptionId';

const alice: Principal = { subject: 'alice', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false };
const aliceTask: TaskOwner = { tenant: 'demo', subject: 'alice', clientId: 'client-1', anonymous: false };
const TASK = { taskId: 'task-a', status: 'working', ttlMs: 60_000, pollIntervalMs: 1_000 };

function filterOf(notifications: Record<string, unknown>): HonouredFilter {
  const filter = readSubscriptionFilter({ notifications });
  if ('invalid' in filter) throw new Error(filter.invalid);
  return filter;
}

/** The JSON-RPC messages written to a target, in order. */
function messagesOn(target: FakeTarget): unknown[] {
  return target.chunks.filter((chunk) => chunk.startsWith('event: message')).map((chunk) => JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)) as unknown);
}

describe('listensAsOwner', () => {
  it('holds for the same tenant, subject and client only (S-289)', () => {
    expect(listensAsOwner(alice, aliceTask)).toBe(true);
    expect(listensAsOwner({ ...alice, clientId: undefined }, { ...aliceTask, clientId: undefined })).toBe(true);
    expect(listensAsOwner({ ...alice, tenant: 'acme' }, aliceTask)).toBe(false);
    expect(listensAsOwner({ ...alice, subject: 'bob' }, aliceTask)).toBe(false);
    expect(listensAsOwner(alice, { ...aliceTask, clientId: undefined })).toBe(false);
  });

  it('never holds for an anonymous owner or listener: anonymous modern callers share one identity', () => {
    const anonymous: Principal = { subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true };
    const anonymousTask: TaskOwner = { tenant: 'demo', subject: 'anonymous', anonymous: true };
    expect(listensAsOwner(anonymous, anonymousTask)).toBe(false);
    expect(listensAsOwner(alice, { ...aliceTask, anonymous: true })).toBe(false);
    expect(listensAsOwner({ ...alice, anonymous: true }, aliceTask)).toBe(false);
  });
});

describe('ListenStreams', () => {
  let streams: ListenStreams;

  beforeEach(() => {
    streams = new ListenStreams();
  });
  afterEach(() => {
    streams.onModuleDestroy();
    vi.useRealTimers();
  });

  function listen(
    id: string | number,
    notifications: Record<string, unknown>,
    where: { tenant?: string; server?: string; endsAt?: number; principal?: Principal; caller?: string } = {},
  ): FakeTarget {
    const target = new FakeTarget();
    streams.open({
      id,
      tenant: where.tenant ?? 'demo',
      server: where.server ?? 'default',
      principal: where.principal ?? alice,
      caller: where.caller ?? 'alice',
      filter: filterOf(notifications),
      response: new LazyResponse(target),
      ...(where.endsAt === undefined ? {} : { endsAt: where.endsAt }),
      completion: () => ({ resultType: 'complete', _meta: { [ID_KEY]: id } }),
    });
    return target;
  }

  it("ends a caller's oldest stream, with its result, when the caller opens one beyond its cap: one address must not hold streams without end", () => {
    streams = new ListenStreams(3);
    const first = listen(1, { toolsListChanged: true });
    const others = [listen(2, { toolsListChanged: true }), listen(3, { toolsListChanged: true })];
    const someoneElse = listen('b', { toolsListChanged: true }, { caller: 'bob' });
    expect(streams.size).toBe(4);
    const newest = listen(4, { toolsListChanged: true });
    expect(first.writableEnded).toBe(true);
    expect(messagesOn(first).at(-1)).toEqual({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', _meta: { [ID_KEY]: 1 } } });
    for (const kept of [...others, newest, someoneElse]) expect(kept.writableEnded).toBe(false);
    expect(streams.size).toBe(4);
    // A stream its client closed no longer counts.
    others[0]?.end();
    listen(5, { toolsListChanged: true });
    expect(others[1]?.writableEnded).toBe(false);
  });

  it('opens an SSE stream whose first message is the acknowledgement with the honoured filter (S-310)', () => {
    const target = listen('sub-1', { toolsListChanged: true, promptsListChanged: false });
    expect(target.status).toBe(200);
    expect(target.headers?.['content-type']).toBe('text/event-stream');
    expect(messagesOn(target)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true }, _meta: { [ID_KEY]: 'sub-1' } },
      },
    ]);
  });

  it('sends each list change only to the streams of that tenant and server that asked for it, tagged (S-309, S-311)', () => {
    const tools = listen(1, { toolsListChanged: true });
    const prompts = listen(2, { promptsListChanged: true });
    const otherServer = listen(3, { toolsListChanged: true }, { server: 'private' });
    const otherTenant = listen(4, { toolsListChanged: true }, { tenant: 'acme' });
    expect(streams.notifyListChanged('demo', ['default'], 'tools')).toBe(1);
    expect(streams.notifyListChanged('demo', [], 'prompts')).toBe(1);
    expect(streams.notifyListChanged('demo', [], 'resources')).toBe(0);
    expect(messagesOn(tools).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [ID_KEY]: 1 } } }]);
    expect(messagesOn(prompts).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: { [ID_KEY]: 2 } } }]);
    expect(messagesOn(otherServer)).toHaveLength(1);
    expect(messagesOn(otherTenant)).toHaveLength(1);
  });

  it('sends resources/updated to the streams of the tenant subscribed to that exact URI', () => {
    const watching = listen('w', { resourceSubscriptions: ['demo://a'] });
    const elsewhere = listen('x', { resourceSubscriptions: ['demo://a'] }, { tenant: 'acme' });
    expect(streams.notifyResourceUpdated('demo', 'demo://a/child')).toBe(0);
    expect(streams.notifyResourceUpdated('demo', 'demo://a')).toBe(1);
    expect(messagesOn(watching).slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://a', _meta: { [ID_KEY]: 'w' } } },
    ]);
    expect(messagesOn(elsewhere)).toHaveLength(1);
  });

  describe('task status (tasks extension)', () => {
    it('acknowledges the task ids asked for (S-310)', () => {
      const target = listen('t', { taskIds: ['task-a'] });
      expect(messagesOn(target)).toEqual([
        { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: ['task-a'] }, _meta: { [ID_KEY]: 't' } } },
      ]);
    });

    it('acknowledges no task ids to an anonymous listener, which never hears of a task (S-289, S-310)', () => {
      const target = listen(
        'anon',
        { toolsListChanged: true, taskIds: ['task-a'] },
        { principal: { ...alice, subject: 'anonymous', clientId: undefined, anonymous: true } },
      );
      expect(messagesOn(target)[0]).toMatchObject({ params: { notifications: { toolsListChanged: true } } });
      expect(messagesOn(target)[0]).not.toHaveProperty('params.notifications.taskIds');
    });

    it('sends notifications/tasks with the task, tagged with the subscription id, to the owner that asked for that task (S-304, S-311)', () => {
      const target = listen('sub-t', { taskIds: ['task-a'] });
      expect(streams.taskListener(aliceTask, 'task-a')).toEqual(alice);
      expect(streams.notifyTaskStatus(aliceTask, 'task-a', TASK)).toBe(1);
      expect(messagesOn(target).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...TASK, _meta: { [ID_KEY]: 'sub-t' } } }]);
    });

    it('sends nothing to a listener that did not ask for that task (S-309)', () => {
      const lists = listen(1, { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true });
      const otherTask = listen(2, { taskIds: ['task-b'] });
      expect(streams.taskListener(aliceTask, 'task-a')).toBeUndefined();
      expect(streams.notifyTaskStatus(aliceTask, 'task-a', TASK)).toBe(0);
      expect(messagesOn(lists)).toHaveLength(1);
      expect(messagesOn(otherTask)).toHaveLength(1);
    });

    it.each<[string, Partial<Principal>, Partial<TaskOwner>]>([
      ['another subject', { subject: 'mallory' }, {}],
      ['another OAuth client of the owner', { clientId: 'client-2' }, {}],
      ['a listener without a client id', { clientId: undefined }, {}],
      ['another tenant', { tenant: 'acme' }, {}],
      [
        'an anonymous listener, for an anonymous owner',
        { subject: 'anonymous', clientId: undefined, anonymous: true },
        { subject: 'anonymous', clientId: undefined, anonymous: true },
      ],
    ])('sends nothing to %s, though it asked for the task (S-289)', (_case, listener, owner) => {
      const principal = { ...alice, ...listener };
      const target = listen('x', { taskIds: ['task-a'] }, { principal, tenant: principal.tenant });
      const taskOwner = { ...aliceTask, ...owner };
      expect(streams.taskListener(taskOwner, 'task-a')).toBeUndefined();
      expect(streams.notifyTaskStatus(taskOwner, 'task-a', TASK)).toBe(0);
      expect(messagesOn(target)).toHaveLength(1);
    });

    it('sends to each of the owner’s streams that asked, and only to those', () => {
      const first = listen('one', { taskIds: ['task-a'] });
      const second = listen('two', { taskIds: ['task-b', 'task-a'] });
      const stranger = listen('three', { taskIds: ['task-a'] }, { principal: { ...alice, subject: 'bob' } });
      expect(streams.notifyTaskStatus(aliceTask, 'task-a', TASK)).toBe(2);
      expect(messagesOn(first).slice(1)).toEqual([expect.objectContaining({ params: expect.objectContaining({ _meta: { [ID_KEY]: 'one' } }) })]);
      expect(messagesOn(second).slice(1)).toEqual([expect.objectContaining({ params: expect.objectContaining({ _meta: { [ID_KEY]: 'two' } }) })]);
      expect(messagesOn(stranger)).toHaveLength(1);
    });
  });

  it('forgets a stream the client closed', () => {
    const target = listen(1, { toolsListChanged: true });
    expect(streams.size).toBe(1);
    target.dropConnection();
    expect(streams.size).toBe(0);
    expect(streams.notifyListChanged('demo', [], 'tools')).toBe(0);
  });

  it('writes a keep-alive comment on every open stream periodically (S-106)', () => {
    vi.useFakeTimers();
    const target = listen(1, {});
    vi.advanceTimersByTime(KEEP_ALIVE_MS * 2);
    expect(target.chunks.filter((chunk) => chunk.startsWith(':'))).toHaveLength(2);
    target.dropConnection();
    vi.advanceTimersByTime(KEEP_ALIVE_MS * 2);
    expect(target.chunks.filter((chunk) => chunk.startsWith(':'))).toHaveLength(2);
  });

  it('ends a stream with its result when the access token it was opened with expires', () => {
    vi.useFakeTimers();
    const expiring = listen('e', { toolsListChanged: true }, { endsAt: Date.now() + 60_000 });
    const lasting = listen('l', { toolsListChanged: true });
    vi.advanceTimersByTime(59_999);
    expect(expiring.writableEnded).toBe(false);
    vi.advanceTimersByTime(1);
    expect(messagesOn(expiring).at(-1)).toEqual({ jsonrpc: '2.0', id: 'e', result: { resultType: 'complete', _meta: { [ID_KEY]: 'e' } } });
    expect(expiring.writableEnded).toBe(true);
    expect(lasting.writableEnded).toBe(false);
    expect(streams.size).toBe(1);
  });

  it('ends every stream at shutdown with the listen result and closes it (S-313)', () => {
    const first = listen(7, { toolsListChanged: true });
    const second = listen('eight', {}, { tenant: 'acme' });
    streams.onModuleDestroy();
    expect(messagesOn(first).at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { [ID_KEY]: 7 } } });
    expect(messagesOn(second).at(-1)).toEqual({ jsonrpc: '2.0', id: 'eight', result: { resultType: 'complete', _meta: { [ID_KEY]: 'eight' } } });
    expect(first.writableEnded && second.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });
});
