import { describe, expect, it } from 'vitest';
import { type RpcContract, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { type MessageBus, RpcError } from '@mcp-platform/shared-messaging';
import type { AdminPrincipal } from './admin-access';
import { mapAdminError } from './admin-error.mapper';
import { UpstreamSourceBodySchema } from './upstream-admin.schemas';
import { UpstreamAdminService } from './upstream-admin.service';

const actor: AdminPrincipal = { subject: 'admin-1', clientId: 'cli', tenant: 'acme', scopes: ['admin'], roles: ['tenant-admin'] };

/** A bus that answers each subject from `answers` and records what was sent. */
function busAnswering(answers: Record<string, (payload: unknown) => unknown>) {
  const sent: Array<{ subject: string; payload: unknown }> = [];
  const bus = {
    request: async (contract: RpcContract, payload: unknown) => {
      sent.push({ subject: contract.subject, payload });
      const answer = answers[contract.subject];
      if (!answer) throw new Error(`unexpected ${contract.subject}`);
      return answer(payload);
    },
  } as unknown as MessageBus;
  return { bus, sent };
}

const DIGEST = `sha256:${'a'.repeat(64)}`;

const view: toolExecutor.UpstreamSourceView = {
  name: 'github',
  policy: 'hold-all',
  enabled: true,
  servers: [],
  connection: { transport: 'streamable-http', url: 'https://mcp.example.test/mcp', auth: { kind: 'headers', headers: { authorization: { set: true } } } },
  health: { state: 'connected', since: '2026-01-01T00:00:00.000Z' },
  items: { approved: 0, held: 1, removed: 0 },
};

const heldItem: toolExecutor.UpstreamItemView = { kind: 'tool', name: 'search', exposedName: 'github__search', status: 'held-new', observedDigest: DIGEST };

describe(UpstreamAdminService, () => {
  describe('put', () => {
    it('sends the definition with the name from the path, defaults applied, and answers what the executor answered', async () => {
      const { bus, sent } = busAnswering({ [toolExecutor.putUpstream.subject]: () => ({ created: true, upstream: view }) });
      const body = UpstreamSourceBodySchema.parse({
        name: 'ignored',
        connection: {
          transport: 'streamable-http',
          url: 'https://mcp.example.test/mcp',
          auth: { kind: 'headers', headers: { authorization: 'Bearer s3cret' } },
        },
      });
      expect(await new UpstreamAdminService(bus).put('acme', 'github', body)).toEqual({ created: true, upstream: view });
      expect(sent).toEqual([
        {
          subject: toolExecutor.putUpstream.subject,
          payload: {
            tenant: 'acme',
            upstream: {
              name: 'github',
              connection: {
                transport: 'streamable-http',
                url: 'https://mcp.example.test/mcp',
                auth: { kind: 'headers', headers: { authorization: 'Bearer s3cret' } },
              },
              policy: 'hold-all',
              enabled: true,
              servers: [],
            },
          },
        },
      ]);
    });
  });

  describe('approve', () => {
    it("sends the reviewed digests with the administrator's subject as the actor", async () => {
      const approved = { ...heldItem, status: 'approved' as const, approvedDigest: DIGEST, approvedBy: 'admin-1' };
      const { bus, sent } = busAnswering({ [toolExecutor.approveUpstreamItems.subject]: () => ({ items: [approved] }) });
      const answer = await new UpstreamAdminService(bus).approve('acme', 'github', { items: [{ kind: 'tool', name: 'search', digest: DIGEST }] }, actor);
      expect(answer).toEqual({ items: [approved] });
      expect(sent).toEqual([
        {
          subject: toolExecutor.approveUpstreamItems.subject,
          payload: { tenant: 'acme', source: 'github', actor: 'admin-1', items: [{ kind: 'tool', name: 'search', digest: DIGEST }] },
        },
      ]);
    });

    it('lets a DIGEST_CHANGED refusal through unchanged, for the mapper to answer 409', async () => {
      const refusal = new RpcError(WireErrorCode.InvalidParams, 'search changed since it was reviewed', { code: 'DIGEST_CHANGED' });
      const { bus } = busAnswering({
        [toolExecutor.approveUpstreamItems.subject]: () => {
          throw refusal;
        },
      });
      const approval = new UpstreamAdminService(bus).approve('acme', 'github', { items: [{ kind: 'tool', name: 'search', digest: DIGEST }] }, actor);
      await expect(approval).rejects.toBe(refusal);
      const { error } = mapAdminError(refusal, new SequentialIds('err'));
      expect(error.status).toBe(409);
      expect(error.toBody()).toEqual({ error: { code: 'CONFLICT', message: 'search changed since it was reviewed' } });
    });
  });

  describe('the other routes', () => {
    it.each([
      ['list', (service: UpstreamAdminService) => service.list('acme'), toolExecutor.listUpstreams, { tenant: 'acme' }, { sources: [view] }],
      ['get', (service: UpstreamAdminService) => service.get('acme', 'github'), toolExecutor.getUpstream, { tenant: 'acme', source: 'github' }, view],
      [
        'refresh',
        (service: UpstreamAdminService) => service.refresh('acme', 'github'),
        toolExecutor.refreshUpstream,
        { tenant: 'acme', source: 'github' },
        view,
      ],
      [
        'listItems',
        (service: UpstreamAdminService) => service.listItems('acme', 'github'),
        toolExecutor.listUpstreamItems,
        { tenant: 'acme', source: 'github' },
        { items: [heldItem] },
      ],
      [
        'listApprovals',
        (service: UpstreamAdminService) => service.listApprovals('acme', 'github'),
        toolExecutor.listUpstreamApprovals,
        { tenant: 'acme', source: 'github' },
        { approvals: [{ at: '2026-01-01T00:00:00.000Z', source: 'github', item: 'search', actor: 'policy:approve-all', digest: DIGEST }] },
      ],
      [
        'listStdioServers',
        (service: UpstreamAdminService) => service.listStdioServers('acme'),
        toolExecutor.listStdioServers,
        { tenant: 'acme' },
        { servers: [{ name: 'filesystem', params: { root: { secret: false, required: true } } }] },
      ],
    ] as const)('%s sends one request and answers what the executor answered', async (_name, operation, contract, payload, answer) => {
      const { bus, sent } = busAnswering({ [contract.subject]: () => answer });
      expect(await operation(new UpstreamAdminService(bus))).toEqual(answer);
      expect(sent).toEqual([{ subject: contract.subject, payload }]);
    });

    it('delete sends one request and answers nothing', async () => {
      const { bus, sent } = busAnswering({ [toolExecutor.deleteUpstream.subject]: () => ({ deleted: true }) });
      expect(await new UpstreamAdminService(bus).delete('acme', 'github')).toBeUndefined();
      expect(sent).toEqual([{ subject: toolExecutor.deleteUpstream.subject, payload: { tenant: 'acme', source: 'github' } }]);
    });

    it('lets wire errors through unchanged (an unknown source is NOT_FOUND, 404 once mapped)', async () => {
      const missing = new RpcError(WireErrorCode.NotFound, 'no upstream acme/absent');
      const { bus } = busAnswering({
        [toolExecutor.getUpstream.subject]: () => {
          throw missing;
        },
      });
      await expect(new UpstreamAdminService(bus).get('acme', 'absent')).rejects.toBe(missing);
      expect(mapAdminError(missing, new SequentialIds('err')).error.status).toBe(404);
    });
  });
});
