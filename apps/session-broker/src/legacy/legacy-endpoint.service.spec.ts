import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { MemoryKeyValueFactory, type MessageBus } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import type { CallRegistry } from '../calls/call-registry.service';
import type { StreamResumption } from '../calls/stream-resumption.service';
import type { MethodTable } from '../methods/method-table';
import type { McpHttpRequest } from '../requests/mcp-request';
import { type LegacySessionLimits, resolveSessionBrokerOptions } from '../session-broker.options';
import { MAX_INITIALIZE_PARAMS_BYTES } from '../sessions/client-description';
import { type LegacySession, SessionStore } from '../sessions/session.store';
import { SessionAdmission } from '../sessions/session-admission.service';
import type { SessionStreams } from '../streams/session-streams.registry';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { LegacyEndpoint } from './legacy-endpoint.service';

const SESSION_ID = 'session-0123456789abcdef';
const principal: Principal = { subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true };
const server: VirtualServer = { tenant: 'demo', name: 'default', public: true, scopes: ['mcp'] };
const session: LegacySession = {
  tenant: 'demo',
  server: 'default',
  subject: 'anonymous',
  anonymous: true,
  protocolVersion: '2025-11-25',
  clientCapabilities: { roots: { listChanged: true } },
  clientInfo: { name: 'test', version: '1.0.0' },
  initialized: true,
  createdAt: 0,
  touchedAt: 0,
};

const brokerOptions = (legacySessionLimits: Partial<LegacySessionLimits> = {}) =>
  resolveSessionBrokerOptions({
    publicUrl: 'http://x',
    allowedHosts: [],
    allowedOrigins: [],
    bodyLimitBytes: 1024,
    replicaId: 'r1',
    auth: { issuer: 'http://as/oauth' },
    legacySessionLimits,
  });

/** A bus that records what is emitted. */
function recordingBus() {
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus;
  return { bus, emitted };
}

function legacyEndpoint(sessions: SessionStore, bus: MessageBus, options = brokerOptions()): LegacyEndpoint {
  return new LegacyEndpoint(
    sessions,
    new SessionAdmission(sessions, bus, options),
    {} as SessionStreams,
    {} as StreamResumption,
    {} as CallRegistry,
    {} as MethodTable,
    bus,
    new SequentialIds('error'),
    options,
  );
}

/** A legacy endpoint over one stored session, recording what it publishes. */
function setup() {
  const { bus, emitted } = recordingBus();
  const sessions = { get: async (id: string) => (id === SESSION_ID ? session : undefined), update: async () => true } as unknown as SessionStore;
  const endpoint = legacyEndpoint(sessions, bus);
  const notify = async (method: string): Promise<FakeTarget> => {
    const target = new FakeTarget();
    const request: McpHttpRequest = {
      method: 'POST',
      tenant: 'demo',
      server: 'default',
      headers: { 'mcp-session-id': SESSION_ID },
      body: { jsonrpc: '2.0', method },
    };
    await endpoint.post(request, { kind: 'notification', method }, server, principal, target);
    return target;
  };
  return { notify, emitted };
}

describe(LegacyEndpoint, () => {
  describe('post', () => {
    it('publishes notifications/roots/list_changed to every executor replica as sessionRootsChanged with the session id (S-342)', async () => {
      const { notify, emitted } = setup();
      const target = await notify('notifications/roots/list_changed');
      // spec S-77: a notification is accepted with 202 and no body.
      expect(target.status).toBe(202);
      expect(emitted).toEqual([{ subject: 'tool-executor.v1.session.roots-changed', payload: { sessionId: SESSION_ID } }]);
    });

    it('publishes nothing for the notifications it only records or ignores', async () => {
      const { notify, emitted } = setup();
      for (const method of ['notifications/initialized', 'notifications/something/else']) await expect(notify(method)).resolves.toMatchObject({ status: 202 });
      expect(emitted).toEqual([]);
    });
  });
});

/** What one `initialize` answered. */
interface Initialized {
  status: number | undefined;
  headers: Record<string, unknown>;
  body: { result?: unknown; error?: { code: number; message: string } };
  sessionId: string | undefined;
}

describe('LegacyEndpoint initialize', () => {
  const stores: SessionStore[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
  });

  /** An endpoint over a real session store (the embedded bucket), with the given caps. */
  async function initializing(limits: Partial<LegacySessionLimits> = {}) {
    const store = await SessionStore.open(new MemoryKeyValueFactory(), { ttlMs: 60_000 });
    stores.push(store);
    const { bus, emitted } = recordingBus();
    const endpoint = legacyEndpoint(store, bus, brokerOptions(limits));
    const initialize = async (params: Record<string, unknown>, caller: { principal?: Principal; address?: string } = {}): Promise<Initialized> => {
      const target = new FakeTarget();
      const request: McpHttpRequest = { method: 'POST', tenant: 'demo', server: 'default', headers: {}, clientAddress: caller.address ?? '203.0.113.7' };
      await endpoint.post(request, { kind: 'request', id: 1, method: 'initialize', params }, server, caller.principal ?? principal, target);
      const headers = (target.headers ?? {}) as Record<string, unknown>;
      const sessionId = headers['mcp-session-id'];
      return {
        status: target.status,
        headers,
        body: JSON.parse(target.chunks.join('')) as Initialized['body'],
        sessionId: typeof sessionId === 'string' ? sessionId : undefined,
      };
    };
    return { store, emitted, initialize };
  }

  const params = (extra: { capabilities?: Record<string, unknown>; clientInfo?: Record<string, unknown> } = {}) => ({
    protocolVersion: '2025-11-25',
    capabilities: extra.capabilities ?? {},
    clientInfo: extra.clientInfo ?? { name: 'client', version: '1.0.0' },
  });

  it('keeps only the capabilities the platform reads, as flags, and name, version and title of clientInfo', async () => {
    const { store, initialize } = await initializing();
    const answer = await initialize(
      params({
        capabilities: {
          sampling: { tools: { detail: 'x'.repeat(1_000) }, context: {} },
          elicitation: { url: {}, form: { applyDefaults: true } },
          roots: { listChanged: true },
          tasks: { list: {}, requests: { sampling: { createMessage: {} } } },
          extensions: { 'io.example/big': { blob: 'y'.repeat(1_000) } },
          experimental: { anything: { blob: 'z'.repeat(10_000) } },
        },
        clientInfo: {
          name: 'client',
          version: '1.0.0',
          title: 'A client',
          description: 'd'.repeat(1_000),
          websiteUrl: 'https://example.com',
          icons: [{ src: 'https://example.com/i.png' }],
        },
      }),
    );
    expect(answer.status).toBe(200);
    const stored = await store.get(answer.sessionId ?? '');
    expect(stored?.clientCapabilities).toEqual({ sampling: { tools: {}, context: {} }, elicitation: { url: {}, form: {} }, roots: { listChanged: true } });
    expect(stored?.clientInfo).toEqual({ name: 'client', version: '1.0.0', title: 'A client' });
    expect(JSON.stringify(stored).length).toBeLessThan(600);
  });

  it('reads a bare elicitation capability as form mode and keeps roots without listChanged', async () => {
    const { store, initialize } = await initializing();
    const answer = await initialize(params({ capabilities: { elicitation: {}, roots: {} } }));
    await expect(store.get(answer.sessionId ?? '')).resolves.toMatchObject({ clientCapabilities: { elicitation: { form: {} }, roots: {} } });
  });

  it(`refuses params over ${MAX_INITIALIZE_PARAMS_BYTES} bytes with -32602 and HTTP 400, storing nothing`, async () => {
    const { store, initialize } = await initializing();
    const answer = await initialize(params({ capabilities: { experimental: { flood: { blob: 'x'.repeat(1024 * 1024) } } } }));
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toMatch(/initialize params are \d+ bytes; at most 65536/);
    expect(answer.sessionId).toBeUndefined();
    expect(store.count('demo', 'any').total).toBe(0);
  });

  it('refuses a clientInfo field longer than 256 characters with -32602 and HTTP 400', async () => {
    const { store, initialize } = await initializing();
    const answer = await initialize(params({ clientInfo: { name: 'n'.repeat(257), version: '1' } }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: -32602, message: 'Invalid params: clientInfo.name is longer than 256 characters' });
    expect(store.count('demo', 'any').total).toBe(0);
  });

  it('at the per-caller cap ends the caller’s least recently used session, on every replica, and no one else’s', async () => {
    const { store, emitted, initialize } = await initializing({ perCaller: 3 });
    const other = await initialize(params(), { address: '198.51.100.1' });
    const opened: string[] = [];
    for (let index = 0; index < 5; index += 1) opened.push((await initialize(params())).sessionId ?? '');
    expect(new Set(opened).size).toBe(5);
    for (const id of opened.slice(0, 2)) await expect(store.get(id)).resolves.toBeUndefined();
    for (const id of [...opened.slice(2), other.sessionId ?? '']) await expect(store.get(id)).resolves.toBeDefined();
    expect(emitted).toEqual(
      opened.slice(0, 2).map((sessionId) => ({ subject: 'session-broker.v1.session.closed', payload: { sessionId, reason: 'evicted' } })),
    );
  });

  it('counts an IPv6 caller by its /64 and a principal by its subject, whichever client and address it calls from', async () => {
    const { store, initialize } = await initializing({ perCaller: 1 });
    const first = await initialize(params(), { address: '2001:db8:1:2::1' });
    await initialize(params(), { address: '2001:db8:1:2::ffff' });
    await expect(store.get(first.sessionId ?? '')).resolves.toBeUndefined();
    const alice: Principal = { subject: 'alice', tenant: 'demo', clientId: 'c1', scopes: ['mcp'], anonymous: false };
    const fromHome = await initialize(params(), { principal: alice, address: '203.0.113.1' });
    const fromWork = await initialize(params(), { principal: alice, address: '203.0.113.2' });
    await expect(store.get(fromHome.sessionId ?? '')).resolves.toBeUndefined();
    // A client registered a minute ago (DCR is open) is no way past the cap: alice's older session ends.
    const otherClient = await initialize(params(), { principal: { ...alice, clientId: 'c2' }, address: '203.0.113.2' });
    await expect(store.get(fromWork.sessionId ?? '')).resolves.toBeUndefined();
    const bob = await initialize(params(), { principal: { ...alice, subject: 'bob' }, address: '203.0.113.2' });
    for (const kept of [otherClient, bob]) await expect(store.get(kept.sessionId ?? '')).resolves.toBeDefined();
  });

  it('refuses a new caller at the tenant’s cap with 429, -32000 and Retry-After, while a caller at its own cap still replaces its sessions', async () => {
    const { store, initialize } = await initializing({ perCaller: 2, perTenant: 3 });
    await initialize(params(), { address: '203.0.113.1' });
    await initialize(params(), { address: '203.0.113.1' });
    await initialize(params(), { address: '203.0.113.2' });
    const refused = await initialize(params(), { address: '203.0.113.3' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/tenant already holds its 3 legacy sessions/) });
    expect(refused.sessionId).toBeUndefined();
    const replacing = await initialize(params(), { address: '203.0.113.1' });
    expect(replacing.status).toBe(200);
    expect(store.count('demo', 'any').tenant).toBe(3);
  });

  it('refuses a new session at the platform’s cap with 503 and Retry-After', async () => {
    const { initialize } = await initializing({ perCaller: 5, perTenant: 5, total: 2 });
    await initialize(params(), { address: '203.0.113.1' });
    await initialize(params(), { address: '203.0.113.2' });
    const refused = await initialize(params(), { address: '203.0.113.3' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body.error?.message).toMatch(/platform already holds its 2 legacy sessions/);
  });
});
