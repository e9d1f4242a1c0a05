import { describe, expect, it } from 'vitest';
import { REQUIRED_SCOPES_META_KEY } from '@mcp-platform/protocol-mcp';
import { BuiltinToolRegistry } from '../builtin/builtin-tool.registry';
import type { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';
import type { CatalogTool, TenantCatalog } from './catalog.types';

const baseTool = (name: string, overrides: Partial<CatalogTool> = {}): CatalogTool => ({
  id: name,
  tenant: 'acme',
  name,
  description: name,
  inputSchema: { type: 'object' },
  kind: 'builtin',
  config: { handler: 'conformance.test_simple_text' },
  timeoutMs: 1_000,
  enabled: true,
  requiredScopes: [],
  taskSupport: 'forbidden',
  updatedAt: new Date(1_000),
  ...overrides,
});

function serviceWith(catalogs: Record<string, TenantCatalog>) {
  const loads: string[] = [];
  const repository = {
    listTenants: async () => Object.keys(catalogs),
    loadTenant: async (tenant: string) => {
      loads.push(tenant);
      return catalogs[tenant];
    },
  } as unknown as CatalogRepository;
  return { service: new CatalogService(repository, new BuiltinToolRegistry()), loads };
}

describe(CatalogService, () => {
  describe('loadAll', () => {
    it('keeps enabled, servable tools of each server, sorted by name', async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['zeta', 'alpha', 'off', 'bad_schema', 'no_handler', 'remote_ref'] }],
          tools: [
            baseTool('zeta'),
            baseTool('alpha'),
            baseTool('off', { enabled: false }),
            baseTool('bad_schema', { inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }),
            baseTool('no_handler', { config: { handler: 'nowhere.nothing' } }),
            baseTool('remote_ref', { inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } }),
          ],
        },
      });
      await service.loadAll();
      expect(service.getServer('acme', 'main')?.tools.map((tool) => tool.wire.name)).toEqual(['alpha', 'zeta']);
      expect(service.listServers()).toEqual([{ tenant: 'acme', name: 'main', public: false, scopes: ['mcp'] }]);
    });

    it("gives each server the baseline scope, then its served tools' distinct required scopes, sorted", async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [
            { tenant: 'acme', name: 'main', public: false, toolNames: ['a', 'b', 'c', 'off'] },
            { tenant: 'acme', name: 'plain', public: true, toolNames: ['c'] },
          ],
          tools: [
            baseTool('a', { requiredScopes: ['zeta:write', 'acme:read'] }),
            baseTool('b', { requiredScopes: ['acme:read', 'mcp'] }),
            baseTool('c'),
            baseTool('off', { enabled: false, requiredScopes: ['never:shown'] }),
          ],
        },
      });
      await service.loadAll();
      expect(service.getServer('acme', 'main')?.server.scopes).toEqual(['mcp', 'acme:read', 'zeta:write']);
      expect(service.getServer('acme', 'plain')?.server.scopes).toEqual(['mcp']);
    });
  });

  describe('disabled tenants', () => {
    it('marks every server of a disabled tenant disabled, so brokers refuse all of its callers', async () => {
      const { service } = serviceWith({
        acme: { tenant: 'acme', disabled: true, servers: [{ tenant: 'acme', name: 'main', public: true, toolNames: [] }], tools: [] },
        beta: { tenant: 'beta', disabled: false, servers: [{ tenant: 'beta', name: 'main', public: true, toolNames: [] }], tools: [] },
      });
      await service.loadAll();
      expect(service.getServer('acme', 'main')?.server).toMatchObject({ public: true, disabled: true });
      expect(service.getServer('beta', 'main')?.server.disabled).toBeUndefined();
    });
  });

  describe('wire definitions', () => {
    it('publishes execution.taskSupport of a tool that allows or requires tasks, and nothing for forbidden (the default, S-197)', async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['forbidden', 'optional', 'required'] }],
          tools: [baseTool('forbidden'), baseTool('optional', { taskSupport: 'optional' }), baseTool('required', { taskSupport: 'required' })],
        },
      });
      await service.loadAll();
      const wire = Object.fromEntries((service.getServer('acme', 'main')?.tools ?? []).map((tool) => [tool.wire.name, tool.wire.execution]));
      expect(wire).toEqual({ forbidden: undefined, optional: { taskSupport: 'optional' }, required: { taskSupport: 'required' } });
    });

    it('marks a tool that requires scopes with them in _meta (the baseline left out), and leaves other tools unmarked (issue 13 item 13)', async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['hash', 'plain'] }],
          tools: [baseTool('hash', { requiredScopes: ['demo:crypto', 'mcp'] }), baseTool('plain')],
        },
      });
      await service.loadAll();
      const wire = Object.fromEntries((service.getServer('acme', 'main')?.tools ?? []).map((tool) => [tool.wire.name, tool.wire._meta]));
      expect(wire).toEqual({ hash: { [REQUIRED_SCOPES_META_KEY]: ['demo:crypto'] }, plain: undefined });
    });
  });

  describe('x-mcp-header declarations', () => {
    it('publishes them in tools/list and keeps them for the call check; leaves a tool with a bad one out', async () => {
      const inputSchema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } };
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['routed', 'broken'] }],
          tools: [
            baseTool('routed', { inputSchema }),
            baseTool('broken', { inputSchema: { type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } } }),
          ],
        },
      });
      await service.loadAll();
      const tools = service.getServer('acme', 'main')?.tools ?? [];
      expect(tools.map((tool) => tool.wire.name)).toEqual(['routed']);
      expect(tools[0]?.wire.inputSchema).toEqual(inputSchema);
      expect(tools[0]?.paramHeaders).toEqual([{ name: 'Region', path: ['region'], type: 'string' }]);
    });
  });

  describe('assertServable', () => {
    const definition = (overrides: Partial<CatalogTool> = {}) => {
      const { id: _id, tenant: _tenant, updatedAt: _updatedAt, ...rest } = baseTool('candidate', overrides);
      return rest;
    };

    it('accepts a built-in tool with a known handler and an HTTP tool with an https URL', () => {
      const { service } = serviceWith({});
      expect(() => service.assertServable(definition())).not.toThrow();
      expect(() => service.assertServable(definition({ kind: 'http', config: { url: 'https://api.example.com/tool' } }))).not.toThrow();
    });

    it('refuses a schema Ajv cannot compile, naming it', () => {
      const { service } = serviceWith({});
      expect(() => service.assertServable(definition({ inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }))).toThrow(
        /inputSchema of candidate does not compile/,
      );
      expect(() => service.assertServable(definition({ outputSchema: { type: 'object', required: 'not-an-array' } }))).toThrow(/outputSchema of candidate/);
    });

    it('refuses invalid x-mcp-header declarations, naming the rule broken (S-117)', () => {
      const { service } = serviceWith({});
      const declaring = (property: Record<string, unknown>) => definition({ inputSchema: { type: 'object', properties: { a: property } } });
      expect(() => service.assertServable(declaring({ type: 'array', 'x-mcp-header': 'A' }))).toThrow(
        /inputSchema of candidate has an invalid x-mcp-header declaration/,
      );
      expect(() => service.assertServable(declaring({ type: 'string', 'x-mcp-header': '' }))).toThrow(/non-empty string/);
      expect(() => service.assertServable(declaring({ type: 'string', 'x-mcp-header': 'A' }))).not.toThrow();
    });

    it('refuses an unknown built-in handler', () => {
      const { service } = serviceWith({});
      expect(() => service.assertServable(definition({ config: { handler: 'nowhere.nothing' } }))).toThrow('no built-in implementation named nowhere.nothing');
    });

    it('refuses an HTTP tool whose URL is not http or https', () => {
      const { service } = serviceWith({});
      expect(() => service.assertServable(definition({ kind: 'http', config: { url: 'file:///etc/passwd' } }))).toThrow(/must be http or https/);
    });
  });

  describe('reloadTenant', () => {
    it('replaces one tenant and drops a tenant that no longer exists', async () => {
      const catalogs: Record<string, TenantCatalog> = {
        acme: { tenant: 'acme', servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['alpha'] }], tools: [baseTool('alpha')] },
        other: { tenant: 'other', servers: [{ tenant: 'other', name: 'x', public: true, toolNames: [] }], tools: [] },
      };
      const { service, loads } = serviceWith(catalogs);
      await service.loadAll();
      const before = service.getServer('acme', 'main')?.tools[0];
      delete catalogs['other'];
      await service.reloadTenant('other');
      await service.reloadTenant('acme');
      expect(service.getServer('other', 'x')).toBeUndefined();
      // Same tool version: the compiled tool is reused, not recompiled.
      expect(service.getServer('acme', 'main')?.tools[0]).toBe(before);
      expect(loads).toEqual(['acme', 'other', 'other', 'acme']);
    });

    it('recompiles a tool whose version changed', async () => {
      const catalogs: Record<string, TenantCatalog> = {
        acme: { tenant: 'acme', servers: [{ tenant: 'acme', name: 'main', public: false, toolNames: ['alpha'] }], tools: [baseTool('alpha')] },
      };
      const { service } = serviceWith(catalogs);
      await service.loadAll();
      const before = service.getServer('acme', 'main')?.tools[0];
      catalogs['acme'] = { ...(catalogs['acme'] as TenantCatalog), tools: [baseTool('alpha', { updatedAt: new Date(2_000), description: 'new' })] };
      await service.reloadTenant('acme');
      const after = service.getServer('acme', 'main')?.tools[0];
      expect(after).not.toBe(before);
      expect(after?.wire.description).toBe('new');
    });
  });

  describe('composition', () => {
    const upstream = (name: string, overrides: Partial<CatalogTool> = {}) =>
      baseTool(name, { kind: 'upstream', config: { source: 'gh-id', sourceName: 'gh', tool: name.replace('gh__', '') }, ...overrides });

    it("exposes a source's tools but the hidden ones, a pick renaming one of them, and held ones by their exposed name", async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          sources: [{ id: 'gh-id', name: 'gh' }],
          servers: [
            {
              tenant: 'acme',
              name: 'main',
              public: false,
              toolNames: [],
              picks: [
                { tool: 'gh__pulls', name: 'pulls', presentation: { name: 'pulls', description: 'Pull requests' } },
                { tool: 'gh__held', name: 'held_renamed', presentation: { name: 'held_renamed' } },
              ],
              sources: [{ sourceId: 'gh-id', source: 'gh', hidden: ['gh__secret'] }],
            },
          ],
          tools: [upstream('gh__issues'), upstream('gh__pulls'), upstream('gh__secret'), upstream('gh__held', { held: 'changed upstream' })],
        },
      });
      await service.loadAll();
      const server = service.getServer('acme', 'main');
      expect(server?.tools.map((tool) => [tool.wire.name, tool.record.name, tool.wire.description])).toEqual([
        ['gh__issues', 'gh__issues', 'gh__issues'],
        ['pulls', 'gh__pulls', 'Pull requests'],
      ]);
      expect([...(server?.held ?? new Map())]).toEqual([['held_renamed', 'changed upstream']]);
    });

    it('keeps a tool a source added later off the server when its name is taken, and keeps serving the rest', async () => {
      const catalogs: Record<string, TenantCatalog> = {
        acme: {
          tenant: 'acme',
          sources: [{ id: 'gh-id', name: 'gh' }],
          servers: [
            {
              tenant: 'acme',
              name: 'main',
              public: false,
              toolNames: [],
              picks: [{ tool: 'calc', name: 'gh__new', presentation: { name: 'gh__new' } }],
              sources: [{ sourceId: 'gh-id', source: 'gh', hidden: [] }],
            },
          ],
          tools: [baseTool('calc'), upstream('gh__issues')],
        },
      };
      const { service } = serviceWith(catalogs);
      await service.loadAll();
      catalogs['acme'] = { ...(catalogs['acme'] as TenantCatalog), tools: [baseTool('calc'), upstream('gh__issues'), upstream('gh__new')] };
      await service.reloadTenant('acme');
      const server = service.getServer('acme', 'main');
      expect(server?.tools.map((tool) => [tool.wire.name, tool.record.name])).toEqual([
        ['gh__issues', 'gh__issues'],
        ['gh__new', 'calc'],
      ]);
    });

    it('leaves out a pick whose fixed argument the tool no longer has', async () => {
      const { service } = serviceWith({
        acme: {
          tenant: 'acme',
          servers: [
            {
              tenant: 'acme',
              name: 'main',
              public: false,
              toolNames: [],
              picks: [{ tool: 'calc', name: 'calc', presentation: { fixedArguments: { gone: 1 } } }],
            },
          ],
          tools: [baseTool('calc')],
        },
      });
      await service.loadAll();
      expect(service.getServer('acme', 'main')?.tools).toEqual([]);
    });
  });
});
