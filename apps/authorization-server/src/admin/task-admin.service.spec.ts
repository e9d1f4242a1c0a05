import { describe, expect, it } from 'vitest';
import { type RpcContract, taskScheduler } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { AdminPrincipal } from './admin-access';
import { TaskAdminService } from './task-admin.service';

const actor: AdminPrincipal = { subject: 'admin-1', clientId: 'cli', tenant: 'acme', scopes: ['admin'], roles: ['tenant-admin'] };

const view: taskScheduler.AdminTaskView = {
  taskId: 'AAAAAAAAAAAAAAAAAAAAAA',
  status: 'cancelled',
  statusMessage: 'The task was cancelled by an administrator',
  createdAt: '2026-01-06T12:00:00.000Z',
  lastUpdatedAt: '2026-01-06T12:00:01.000Z',
  ttlMs: 60_000,
  pollIntervalMs: 1_000,
  server: 'main',
  tool: 'long_operation',
  era: 'legacy',
  owner: { subject: 'alice', clientId: 'app', anonymous: false },
  runsStarted: 1,
  idempotent: true,
};

/** A bus that answers every request with `answer` and records what was sent. */
function busAnswering(answer: unknown) {
  const sent: Array<{ subject: string; payload: unknown }> = [];
  const bus = {
    request: async (contract: RpcContract, payload: unknown) => {
      sent.push({ subject: contract.subject, payload });
      return answer;
    },
  } as unknown as MessageBus;
  return { bus, sent };
}

describe(TaskAdminService, () => {
  describe('listTasks', () => {
    it('asks the scheduler for the tenant, passing only the query parameters given', async () => {
      const { bus, sent } = busAnswering({ tasks: [view] });
      const service = new TaskAdminService(bus);
      expect(await service.listTasks('acme', {})).toEqual({ tasks: [view] });
      await service.listTasks('acme', { status: 'working', cursor: 'abc' });
      expect(sent).toEqual([
        { subject: taskScheduler.listTenantTasks.subject, payload: { tenant: 'acme' } },
        { subject: taskScheduler.listTenantTasks.subject, payload: { tenant: 'acme', status: 'working', cursor: 'abc' } },
      ]);
    });
  });

  describe('cancelTask', () => {
    it("names the administrator by its token's subject only", async () => {
      const { bus, sent } = busAnswering(view);
      expect(await new TaskAdminService(bus).cancelTask('acme', view.taskId, actor)).toEqual(view);
      expect(sent).toEqual([
        { subject: taskScheduler.cancelTenantTask.subject, payload: { tenant: 'acme', taskId: view.taskId, actor: { subject: 'admin-1' } } },
      ]);
    });
  });
});
