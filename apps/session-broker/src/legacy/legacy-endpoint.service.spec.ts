import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import type { CallRegistry } from '../calls/call-registry.service';
import type { McpHttpRequest } from '../edge/mcp-request';
import type { ResourceMethods } from '../methods/resource-methods.service';
import type { ToolMethods } from '../methods/tool-methods.service';
import type { TaskMethods } from '../tasks/task-methods.service';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import type { SessionStreams } from '../streams/session-streams.registry';
import type { StreamResumption } from '../streams/stream-resumption.service';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { LegacyEndpoint } from './legacy-endpoint.service';
import type { LegacySession, SessionStore } from './session.store';

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

/** A legacy endpoint over one stored session, recording what it publishes. */
function setup() {
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus;
  const sessions = { get: async (id: string) => (id === SESSION_ID ? session : undefined), update: async () => true } as unknown as SessionStore;
  const endpoint = new LegacyEndpoint(
    sessions,
    {} as SessionStreams,
    {} as StreamResumption,
    {} as CallRegistry,
    {} as ToolMethods,
    {} as ResourceMethods,
    {} as TaskMethods,
    bus,
    resolveSessionBrokerOptions({ publicUrl: 'http://x', allowedHosts: [], allowedOrigins: [], bodyLimitBytes: 1024, replicaId: 'r1', auth: { issuer: 'http://as/oauth' } }),
  );
  const notify = async (method: string): Promise<FakeTarget> => {
    const target = new FakeTarget();
    const request: McpHttpRequest = { method: 'POST', tenant: 'demo', server: 'default', headers: { 'mcp-session-id': SESSION_ID }, body: { jsonrpc: '2.0', method } };
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
