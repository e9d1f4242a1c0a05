import { describe, expect, it } from 'vitest';
import { type Principal, WireErrorCode } from '@mcp-platform/protocol-contracts';
import type { CatalogService, PreparedTool, ServerSnapshot } from '../catalog/catalog.service';
import { compileSchema } from '../catalog/schema-validator';
import { TOOLS_PAGE_SIZE, ToolsService } from './tools.service';

const inputSchema = { type: 'object' };
const anyObject = compileSchema(inputSchema, 'inputSchema');

function tool(name: string, requiredScopes: string[] = []): PreparedTool {
  return {
    record: {
      id: name,
      tenant: 't',
      name,
      inputSchema,
      kind: 'builtin',
      config: { handler: name },
      timeoutMs: 1_000,
      enabled: true,
      requiredScopes,
      taskSupport: 'forbidden',
      updatedAt: new Date(0),
    },
    wire: { name, inputSchema: { type: 'object' } },
    input: anyObject,
    paramHeaders: [],
    runner: { kind: 'builtin', implementation: async () => ({ content: [] }) },
  };
}

function serviceWith(tools: PreparedTool[], options: { public?: boolean } = {}) {
  const snapshot: ServerSnapshot = {
    server: { tenant: 't', name: 's', public: options.public ?? false, scopes: ['mcp'] },
    tools,
    byName: new Map(tools.map((entry) => [entry.record.name, entry])),
    held: new Map(),
  };
  const catalog = { getServer: (tenant: string, server: string) => (tenant === 't' && server === 's' ? snapshot : undefined) } as unknown as CatalogService;
  return new ToolsService(catalog);
}

const principal = (scopes: string[], tenant = 't', obtainableScopes?: string[]): Principal => ({
  subject: 'user-1',
  tenant,
  clientId: 'client-1',
  scopes,
  ...(obtainableScopes ? { obtainableScopes } : {}),
  anonymous: false,
});
const anonymous: Principal = { subject: 'anonymous', tenant: 't', scopes: [], anonymous: true };
const names = (page: { tools: Array<{ name: string }> }) => page.tools.map((entry) => entry.name);

describe(ToolsService, () => {
  describe('listTools', () => {
    it('shows only the tools whose required scopes the principal covers', () => {
      const service = serviceWith([tool('alpha'), tool('hash', ['demo:crypto']), tool('write', ['files:write'])]);
      expect(names(service.listTools('t', 's', undefined, principal(['mcp'])))).toEqual(['alpha']);
      expect(names(service.listTools('t', 's', undefined, principal(['mcp', 'demo:crypto'])))).toEqual(['alpha', 'hash']);
      // S-144: a broader scope covers the narrower one.
      expect(names(service.listTools('t', 's', undefined, principal(['mcp', 'demo', 'files'])))).toEqual(['alpha', 'hash', 'write']);
      expect(names(service.listTools('t', 's', undefined, anonymous))).toEqual(['alpha']);
    });

    it('also lists the tools the principal could obtain by stepping up, and keeps hiding those it never could (issue 13 item 13)', () => {
      const service = serviceWith([tool('alpha'), tool('hash', ['demo:crypto']), tool('write', ['files:write'])]);
      expect(names(service.listTools('t', 's', undefined, principal(['mcp'], 't', ['mcp', 'demo:crypto'])))).toEqual(['alpha', 'hash']);
      // S-144: an obtainable broader scope covers the narrower one; a tool needing two scopes needs both obtainable or held.
      expect(names(service.listTools('t', 's', undefined, principal(['mcp', 'files:write'], 't', ['mcp', 'demo'])))).toEqual(['alpha', 'hash', 'write']);
      expect(names(service.listTools('t', 's', undefined, principal(['mcp'], 't', ['mcp'])))).toEqual(['alpha']);
      const both = serviceWith([tool('alpha'), tool('both', ['demo:crypto', 'files:write'])]);
      expect(names(both.listTools('t', 's', undefined, principal(['mcp', 'files:write'], 't', ['mcp', 'demo:crypto'])))).toEqual(['alpha', 'both']);
      expect(names(both.listTools('t', 's', undefined, principal(['mcp'], 't', ['mcp', 'demo:crypto'])))).toEqual(['alpha']);
    });

    it('pages over the filtered list, and the cursor of one page leads to the next', () => {
      const all = Array.from({ length: TOOLS_PAGE_SIZE + 20 }, (_, index) => {
        const name = `tool_${String(index).padStart(3, '0')}`;
        return tool(name, index % 2 === 1 ? ['secret'] : []);
      });
      const service = serviceWith(all);
      const caller = principal(['mcp']);
      // Only the 60 even tools are visible: one page, no cursor.
      const onlyPage = service.listTools('t', 's', undefined, caller);
      expect(onlyPage.tools).toHaveLength((TOOLS_PAGE_SIZE + 20) / 2);
      expect(onlyPage.nextCursor).toBeUndefined();

      const privileged = principal(['mcp', 'secret']);
      const first = service.listTools('t', 's', undefined, privileged);
      expect(first.tools).toHaveLength(TOOLS_PAGE_SIZE);
      expect(first.nextCursor).toBeDefined();
      const second = service.listTools('t', 's', first.nextCursor, privileged);
      expect([...names(first), ...names(second)]).toEqual(all.map((entry) => entry.record.name));
      expect(second.nextCursor).toBeUndefined();
      // A cursor minted for one caller still works for another: it names a position, not a page.
      expect(names(service.listTools('t', 's', first.nextCursor, caller))).toEqual(
        all
          .slice(TOOLS_PAGE_SIZE)
          .filter((entry) => entry.record.requiredScopes.length === 0)
          .map((entry) => entry.record.name),
      );
    });

    it('says cacheScope public only for a public server none of whose tools requires a scope, and keeps the ttl', () => {
      expect(serviceWith([tool('alpha')], { public: true }).listTools('t', 's', undefined, anonymous)).toMatchObject({ cacheScope: 'public', ttlMs: 60_000 });
      expect(serviceWith([tool('alpha'), tool('hash', ['demo:crypto'])], { public: true }).listTools('t', 's', undefined, anonymous)).toMatchObject({
        cacheScope: 'private',
        ttlMs: 60_000,
      });
      expect(serviceWith([tool('alpha')], { public: false }).listTools('t', 's', undefined, principal(['mcp']))).toMatchObject({ cacheScope: 'private' });
    });

    it('answers FORBIDDEN to a principal of another tenant, even for a server that does not exist', () => {
      const service = serviceWith([tool('alpha')]);
      expect(() => service.listTools('t', 's', undefined, principal(['mcp'], 'other'))).toThrow(expect.objectContaining({ code: WireErrorCode.Forbidden }));
      expect(() => service.listTools('elsewhere', 'nope', undefined, principal(['mcp']))).toThrow(expect.objectContaining({ code: WireErrorCode.Forbidden }));
    });

    it('answers FORBIDDEN without a principal, NOT_FOUND for an unknown server of the own tenant', () => {
      const service = serviceWith([tool('alpha')]);
      expect(() => service.listTools('t', 's', undefined, undefined)).toThrow(expect.objectContaining({ code: WireErrorCode.Forbidden }));
      expect(() => service.listTools('t', 'nope', undefined, principal(['mcp']))).toThrow(expect.objectContaining({ code: WireErrorCode.NotFound }));
    });
  });
});
