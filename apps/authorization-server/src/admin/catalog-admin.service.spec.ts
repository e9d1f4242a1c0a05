import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RpcContract, toolExecutor } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { adminApiSettings } from './admin.constants';
import type { AdminPrincipal } from './admin-access';
import { CatalogAdminService } from './catalog-admin.service';

const settings = adminApiSettings({
  publicUrl: 'https://auth.example.test',
  issuer: 'https://auth.example.test/oauth',
  adminAudience: 'https://auth.example.test/admin/v1',
  mcpPublicUrl: 'https://mcp.example.test',
});

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

const tool = { name: 'echo', inputSchema: { type: 'object' }, kind: 'builtin' as const, config: { handler: 'echo' }, enabled: true, requiredScopes: [] };

describe(CatalogAdminService, () => {
  afterEach(() => vi.restoreAllMocks());

  describe('putServer', () => {
    it('sends the definition with the name from the path and answers the MCP URL', async () => {
      const { bus, sent } = busAnswering({
        [toolExecutor.putServerDefinition.subject]: (payload) => ({ created: true, server: (payload as { server: unknown }).server }),
      });
      const result = await new CatalogAdminService(bus, settings).putServer('acme', 'main', { title: 'Main', public: false, tools: ['echo'] }, actor);
      expect(sent).toEqual([
        {
          subject: toolExecutor.putServerDefinition.subject,
          payload: { tenant: 'acme', server: { name: 'main', title: 'Main', public: false, tools: ['echo'] } },
        },
      ]);
      expect(result).toEqual({
        created: true,
        server: { name: 'main', title: 'Main', public: false, tools: ['echo'], url: 'https://mcp.example.test/acme/main/mcp' },
      });
    });

    it('warns when the server is public, and only then', async () => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { bus } = busAnswering({
        [toolExecutor.putServerDefinition.subject]: (payload) => ({ created: false, server: (payload as { server: unknown }).server }),
      });
      const service = new CatalogAdminService(bus, settings);
      await service.putServer('acme', 'main', { public: false, tools: [] }, actor);
      expect(warn).not.toHaveBeenCalled();
      await service.putServer('acme', 'open', { public: true, tools: [] }, actor);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatchObject({ tenant: 'acme', server: 'open', actor: 'admin-1' });
    });
  });

  describe('setToolEnabled', () => {
    it('writes the stored definition back with enabled changed', async () => {
      const { bus, sent } = busAnswering({
        [toolExecutor.getToolDefinition.subject]: () => tool,
        [toolExecutor.putToolDefinition.subject]: (payload) => ({ created: false, tool: (payload as { tool: unknown }).tool }),
      });
      const result = await new CatalogAdminService(bus, settings).setToolEnabled('acme', 'echo', false);
      expect(result.enabled).toBe(false);
      expect(sent.map((entry) => entry.subject)).toEqual([toolExecutor.getToolDefinition.subject, toolExecutor.putToolDefinition.subject]);
      expect(sent[1]?.payload).toEqual({ tenant: 'acme', tool: { ...tool, enabled: false } });
    });

    it('sends nothing when the tool is already in that state', async () => {
      const { bus, sent } = busAnswering({ [toolExecutor.getToolDefinition.subject]: () => tool });
      expect(await new CatalogAdminService(bus, settings).setToolEnabled('acme', 'echo', true)).toEqual(tool);
      expect(sent).toHaveLength(1);
    });
  });
});
