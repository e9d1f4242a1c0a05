import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EventPayload, type Principal, type RpcContract, taskScheduler } from '@mcp-platform/protocol-contracts';
import type { AccessTokenVerifier } from '@mcp-platform/shared-auth';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../test/fake-response-target';
import type { TokenRevocations } from './auth/token-revocations.service';
import { BrokerEvents } from './broker-events.service';
import { OpenConnections } from './edge/open-connections.registry';
import type { LegacyEndpoint } from './legacy/legacy-endpoint.service';
import type { SessionStore } from './sessions/session.store';
import { LazyResponse } from './streams/lazy-response';
import type { SessionStreams } from './streams/session-streams.registry';
import { ListenStreams } from './subscriptions/listen-streams.registry';
import { readSubscriptionFilter } from './subscriptions/subscription-filter';
import type { VirtualServerCache } from './virtual-servers/virtual-server.cache';

const ID_KEY = 'io.modelcontextprotocol/subscriptionId';
const TASK_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const alice: Principal = { subject: 'alice', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false };

type TaskStatusChange = EventPayload<typeof taskScheduler.taskStatusChanged>;

function view(status: taskScheduler.TaskStatus, extra: Partial<taskScheduler.TaskView> = {}): taskScheduler.TaskView {
  return {
    taskId: TASK_ID,
    status,
    createdAt: '2026-11-30T10:00:00.000Z',
    lastUpdatedAt: '2026-11-30T10:00:01.000Z',
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...extra,
  };
}

function change(task: taskScheduler.TaskView, extra: Partial<TaskStatusChange> = {}): TaskStatusChange {
  return { task, tenant: 'demo', era: 'modern', owner: { subject: 'alice', clientId: 'client-1', anonymous: false }, ...extra };
}

/** The JSON-RPC messages written to a target, in order. */
function messagesOn(target: FakeTarget): unknown[] {
  return target.chunks.filter((chunk) => chunk.startsWith('event: message')).map((chunk) => JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)) as unknown);
}

describe(BrokerEvents, () => {
  let listens: ListenStreams;
  let sentToSessions: Array<{ sessionId: string; message: Record<string, unknown> }>;
  let asked: Array<{ subject: string; request: unknown; principal: Principal | undefined }>;
  let answers: Array<taskScheduler.TaskState | Error>;
  let events: BrokerEvents;

  beforeEach(() => {
    listens = new ListenStreams();
    sentToSessions = [];
    asked = [];
    answers = [];
    const streams = {
      send: (sessionId: string, message: Record<string, unknown>) => {
        sentToSessions.push({ sessionId, message });
        return true;
      },
    } as unknown as SessionStreams;
    const bus = {
      request: async (contract: RpcContract, request: unknown, options?: { context?: { principal?: Principal } }) => {
        asked.push({ subject: contract.subject, request, principal: options?.context?.principal });
        const next = answers.shift();
        if (next === undefined) throw new Error(`no answer left for ${contract.subject}`);
        if (next instanceof Error) throw next;
        return next;
      },
    } as unknown as MessageBus;
    events = new BrokerEvents(
      {} as VirtualServerCache,
      streams,
      listens,
      {} as LegacyEndpoint,
      {} as SessionStore,
      {} as AccessTokenVerifier,
      bus,
      {} as TokenRevocations,
      new OpenConnections(),
    );
  });
  afterEach(() => {
    listens.onModuleDestroy();
  });

  function listen(id: string, taskIds: string[], principal: Principal = alice): FakeTarget {
    const filter = readSubscriptionFilter({ notifications: { taskIds } });
    if ('invalid' in filter) throw new Error(filter.invalid);
    const target = new FakeTarget();
    listens.open({
      id,
      tenant: principal.tenant,
      server: 'default',
      principal,
      caller: principal.subject,
      filter,
      response: new LazyResponse(target),
      completion: () => ({}),
    });
    return target;
  }

  describe('taskStatusChanged', () => {
    it('pushes notifications/tasks/status to the legacy session that created the task, as before (S-284)', async () => {
      await events.taskStatusChanged(change(view('working'), { era: 'legacy', sessionId: 'session-1' }));
      expect(sentToSessions).toEqual([
        {
          sessionId: 'session-1',
          message: { jsonrpc: '2.0', method: 'notifications/tasks/status', params: expect.objectContaining({ taskId: TASK_ID, ttl: 60_000 }) },
        },
      ]);
    });

    it('tells no modern listener of a legacy task', async () => {
      const target = listen('l', [TASK_ID]);
      await events.taskStatusChanged(change(view('working'), { era: 'legacy', sessionId: 'session-1' }));
      expect(messagesOn(target)).toHaveLength(1);
    });

    it('pushes a modern working task from the event itself, tagged, to its owner’s listener that asked (S-304, S-311)', async () => {
      const target = listen('l', [TASK_ID]);
      await events.taskStatusChanged(change(view('working', { statusMessage: 'busy' })));
      expect(asked).toEqual([]);
      expect(sentToSessions).toEqual([]);
      expect(messagesOn(target).slice(1)).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/tasks',
          params: {
            taskId: TASK_ID,
            status: 'working',
            statusMessage: 'busy',
            createdAt: '2026-11-30T10:00:00.000Z',
            lastUpdatedAt: '2026-11-30T10:00:01.000Z',
            ttlMs: 60_000,
            pollIntervalMs: 1_000,
            _meta: { [ID_KEY]: 'l' },
          },
        },
      ]);
    });

    it('pushes an input_required task with its input requests (S-300)', async () => {
      const target = listen('l', [TASK_ID]);
      const inputRequests = { name: { method: 'elicitation/create', params: { message: 'Name?' } } };
      await events.taskStatusChanged(change(view('input_required', { inputRequests })));
      expect(messagesOn(target)[1]).toMatchObject({ params: { status: 'input_required', inputRequests } });
    });

    it('reads a completed task as its listener and pushes it with its result (S-304: what tasks/get shows)', async () => {
      const target = listen('l', [TASK_ID]);
      answers.push({ task: view('completed'), outcome: { result: { content: [], structuredContent: { rows: 500 } } } });
      await events.taskStatusChanged(change(view('completed')));
      expect(asked).toEqual([{ subject: taskScheduler.getTask.subject, request: { taskId: TASK_ID }, principal: alice }]);
      expect(messagesOn(target)[1]).toMatchObject({
        method: 'notifications/tasks',
        params: { taskId: TASK_ID, status: 'completed', result: { structuredContent: { rows: 500 } }, _meta: { [ID_KEY]: 'l' } },
      });
      expect(messagesOn(target)[1]).not.toHaveProperty('params.resultType');
    });

    it('pushes a failed task with its JSON-RPC error (S-303)', async () => {
      const target = listen('l', [TASK_ID]);
      answers.push({ task: view('failed'), outcome: { error: { code: 'INVALID_PARAMS', message: 'bad report' } } });
      await events.taskStatusChanged(change(view('failed')));
      expect(messagesOn(target)[1]).toMatchObject({ params: { status: 'failed', error: { code: -32602, message: 'bad report' } } });
    });

    it('drops the push when the task cannot be read: the client polls', async () => {
      const target = listen('l', [TASK_ID]);
      answers.push(new Error('scheduler unavailable'));
      await events.taskStatusChanged(change(view('completed')));
      expect(messagesOn(target)).toHaveLength(1);
    });

    it.each<[string, Partial<TaskStatusChange>]>([
      ['another subject', { owner: { subject: 'bob', clientId: 'client-1', anonymous: false } }],
      ['another OAuth client', { owner: { subject: 'alice', clientId: 'client-2', anonymous: false } }],
      ['an anonymous owner', { owner: { subject: 'alice', clientId: 'client-1', anonymous: true } }],
      ['another tenant', { tenant: 'acme' }],
    ])('neither reads nor pushes a task of %s (S-289)', async (_case, extra) => {
      const target = listen('l', [TASK_ID]);
      await events.taskStatusChanged(change(view('completed'), extra));
      expect(asked).toEqual([]);
      expect(messagesOn(target)).toHaveLength(1);
    });

    it('neither reads nor pushes when no listener asked for the task (S-309)', async () => {
      const target = listen('l', ['BBBBBBBBBBBBBBBBBBBBBB']);
      await events.taskStatusChanged(change(view('completed')));
      expect(asked).toEqual([]);
      expect(messagesOn(target)).toHaveLength(1);
    });
  });

  describe('tenants disabled or deleted, tokens revoked', () => {
    /** An open connection: a response that closes when destroyed. */
    function connection(connections: OpenConnections, tenant: string, subject: string): { destroyed: boolean } {
      const response = Object.assign(new EventEmitter(), {
        destroyed: false,
        end: () => undefined,
        destroy: () => {
          response.destroyed = true;
          response.emit('close');
        },
      });
      connections.track(tenant, subject, response);
      return response;
    }

    function setup() {
      const connections = new OpenConnections();
      const servers = { tenantChanged: vi.fn() };
      const sessions = { idsOfTenant: vi.fn(() => ['s1', 's2']), delete: vi.fn(async () => undefined) };
      const legacy = { onSessionClosed: vi.fn() };
      const revocations = { add: vi.fn() };
      const brokerEvents = new BrokerEvents(
        servers as unknown as VirtualServerCache,
        {} as SessionStreams,
        new ListenStreams(),
        legacy as unknown as LegacyEndpoint,
        sessions as unknown as SessionStore,
        {} as AccessTokenVerifier,
        {} as MessageBus,
        revocations as unknown as TokenRevocations,
        connections,
      );
      return { brokerEvents, connections, servers, sessions, legacy, revocations };
    }

    it('refuses a disabled tenant, cuts its open connections and ends its legacy sessions', async () => {
      const { brokerEvents, connections, servers, sessions, legacy } = setup();
      const [ours, theirs] = [connection(connections, 'acme', 'anonymous'), connection(connections, 'beta', 'u1')];
      await brokerEvents.tenantStateChanged({ tenant: 'acme', tenantId: '9b0e3c2a-1111-4222-8333-444455556666', state: 'disabled' });
      expect(servers.tenantChanged).toHaveBeenCalledWith('acme', 'disabled');
      expect([ours.destroyed, theirs.destroyed]).toEqual([true, false]);
      expect(sessions.delete.mock.calls).toEqual([['s1'], ['s2']]);
      expect(legacy.onSessionClosed.mock.calls).toEqual([['s1'], ['s2']]);
    });

    it('only forgets the cached servers of a tenant enabled again', async () => {
      const { brokerEvents, connections, servers, sessions } = setup();
      const open = connection(connections, 'acme', 'u1');
      await brokerEvents.tenantStateChanged({ tenant: 'acme', tenantId: '9b0e3c2a-1111-4222-8333-444455556666', state: 'enabled' });
      expect(servers.tenantChanged).toHaveBeenCalledWith('acme', 'enabled');
      expect(open.destroyed).toBe(false);
      expect(sessions.delete).not.toHaveBeenCalled();
    });

    it('remembers a revoked subject and cuts its open connections', () => {
      const { brokerEvents, connections, revocations } = setup();
      const [mine, theirs] = [connection(connections, 'acme', 'u1'), connection(connections, 'acme', 'u2')];
      const revocation = { kind: 'subject' as const, id: 'u1', revokedAt: Date.now() };
      brokerEvents.accessRevoked(revocation);
      expect(revocations.add).toHaveBeenCalledWith(revocation);
      expect([mine.destroyed, theirs.destroyed]).toEqual([true, false]);
    });
  });
});
