import { describe, expect, it } from 'vitest';
import { type toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { BuiltinToolRegistry } from '../builtin/builtin-tool.registry';
import type { CatalogRepository, ServerComposition } from '../catalog/catalog.repository';
import { CatalogService } from '../catalog/catalog.service';
import type { CatalogTool, CatalogVirtualServer, TenantCatalog, ToolDefinition, ToolLastError, VirtualServerDefinition } from '../catalog/catalog.types';
import { CatalogPublisher } from '../catalog/catalog-publisher';
import type { ToolLastErrorsRepository } from '../catalog/tool-last-errors.repository';
import { CatalogAdminService } from './catalog-admin.service';

/** The repository's contract over plain maps: enough to see what the service stores and when. */
class MemoryCatalogRepository {
  readonly tenants = new Map<
    string,
    { disabled?: boolean; tools: Map<string, CatalogTool>; servers: Map<string, CatalogVirtualServer>; sources?: Array<{ id: string; name: string }> }
  >();
  private version = 0;

  async listTenants(): Promise<string[]> {
    return [...this.tenants.keys()].sort();
  }

  async loadTenant(tenant: string): Promise<TenantCatalog | undefined> {
    const entry = this.tenants.get(tenant);
    if (!entry) return undefined;
    const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : 1);
    return {
      tenant,
      ...(entry.disabled ? { disabled: true } : {}),
      tools: [...entry.tools.values()].sort(byName),
      servers: [...entry.servers.values()]
        .map((server) => ({
          ...server,
          toolNames: server.toolNames.filter((name) => entry.tools.has(name)),
          ...(server.picks ? { picks: server.picks.filter((pick) => entry.tools.has(pick.tool)) } : {}),
        }))
        .sort(byName),
      ...(entry.sources ? { sources: entry.sources } : {}),
    };
  }

  async ensureTenant(tenant: string): Promise<boolean> {
    if (this.tenants.has(tenant)) return false;
    this.tenants.set(tenant, { tools: new Map(), servers: new Map() });
    return true;
  }

  async setTenantDisabled(tenant: string, disabled: boolean): Promise<boolean> {
    const entry = this.require(tenant);
    if ((entry.disabled ?? false) === disabled) return false;
    entry.disabled = disabled;
    return true;
  }

  async deleteTenant(tenant: string): Promise<boolean> {
    return this.tenants.delete(tenant);
  }

  async saveTool(tenant: string, definition: ToolDefinition): Promise<boolean> {
    const entry = this.require(tenant);
    const current = entry.tools.get(definition.name);
    const next: CatalogTool = { ...definition, id: current?.id ?? definition.name, tenant, updatedAt: current?.updatedAt ?? new Date(0) };
    if (current && JSON.stringify(current) === JSON.stringify(next)) return false;
    entry.tools.set(definition.name, { ...definition, id: current?.id ?? definition.name, tenant, updatedAt: new Date(++this.version) });
    return true;
  }

  async deleteTool(tenant: string, name: string): Promise<boolean> {
    return this.require(tenant).tools.delete(name);
  }

  async saveVirtualServer(tenant: string, definition: VirtualServerDefinition, composition: string[] | ServerComposition): Promise<boolean> {
    const { toolNames, picks, sources } = Array.isArray(composition) ? { toolNames: composition, picks: [], sources: [] } : composition;
    const sourceIds = new Map((this.require(tenant).sources ?? []).map((source) => [source.name, source.id]));
    this.require(tenant).servers.set(definition.name, {
      ...definition,
      tenant,
      toolNames: [...toolNames].sort(),
      ...(picks?.length ? { picks } : {}),
      ...(sources?.length ? { sources: sources.map((source) => ({ ...source, sourceId: sourceIds.get(source.source) ?? '' })) } : {}),
    });
    return true;
  }

  async deleteVirtualServer(tenant: string, name: string): Promise<boolean> {
    return this.require(tenant).servers.delete(name);
  }

  private require(tenant: string) {
    const entry = this.tenants.get(tenant);
    if (!entry) throw new Error(`unknown tenant ${tenant}`);
    return entry;
  }
}

/** Last failures by tenant, then by tool id. */
class MemoryLastErrors {
  readonly byTenant = new Map<string, Map<string, ToolLastError>>();

  async forTenant(tenant: string): Promise<Map<string, ToolLastError>> {
    return new Map(this.byTenant.get(tenant));
  }
}

function setup() {
  const repository = new MemoryCatalogRepository();
  const lastErrors = new MemoryLastErrors();
  const catalog = new CatalogService(repository as unknown as CatalogRepository, new BuiltinToolRegistry());
  const published: unknown[] = [];
  const bus = { emit: (_contract: unknown, payload: unknown) => published.push(payload) } as unknown as MessageBus;
  const service = new CatalogAdminService(
    repository as unknown as CatalogRepository,
    lastErrors as unknown as ToolLastErrorsRepository,
    catalog,
    new CatalogPublisher(catalog, bus),
  );
  return { repository, lastErrors, catalog, service, published };
}

const builtinTool = (overrides: Partial<toolExecutor.ToolDefinitionRecord> = {}): toolExecutor.ToolDefinitionRecord =>
  ({
    name: 'simple',
    description: 'Answers with a fixed text',
    inputSchema: { type: 'object' },
    enabled: true,
    requiredScopes: [],
    kind: 'builtin',
    config: { handler: 'conformance.test_simple_text' },
    ...overrides,
  }) as toolExecutor.ToolDefinitionRecord;

const server = (overrides: Partial<toolExecutor.VirtualServerDefinitionRecord> = {}): toolExecutor.VirtualServerDefinitionRecord => ({
  name: 'main',
  public: false,
  tools: [],
  ...overrides,
});

describe(CatalogAdminService, () => {
  describe('putTenant', () => {
    it('creates a tenant once and says so', async () => {
      const { service, published } = setup();
      await expect(service.putTenant('acme')).resolves.toEqual({ created: true });
      await expect(service.putTenant('acme')).resolves.toEqual({ created: false });
      expect(published).toEqual([{ tenant: 'acme', servers: [] }]);
    });

    it('disables and enables a tenant: its servers say so on every replica (a reload), nothing else is told', async () => {
      const { service, catalog, published } = setup();
      await service.putTenant('acme');
      await service.putServer('acme', { name: 'main', public: true, tools: [] });
      await expect(service.putTenant('acme', true)).resolves.toEqual({ created: false });
      expect(catalog.getServer('acme', 'main')?.server.disabled).toBe(true);
      await service.putTenant('acme', true);
      await service.putTenant('acme', false);
      expect(catalog.getServer('acme', 'main')?.server.disabled).toBeUndefined();
      expect((published as Array<{ servers: string[] }>).filter((event) => event.servers.length === 0)).toEqual([
        { tenant: 'acme', servers: [] },
        { tenant: 'acme', servers: [] },
        { tenant: 'acme', servers: [] },
      ]);
    });

    it("refuses a name the platform's own routes use", async () => {
      const { service, repository } = setup();
      await expect(service.putTenant('oauth')).rejects.toMatchObject({ code: WireErrorCode.InvalidParams });
      expect(repository.tenants.size).toBe(0);
    });
  });

  describe('putTool', () => {
    it('creates then replaces a tool, with defaults and sorted distinct scopes, and publishes the servers exposing it', async () => {
      const { service, published } = setup();
      await service.putTenant('acme');
      const first = await service.putTool('acme', builtinTool({ requiredScopes: ['b:x', 'a', 'b:x'] }));
      expect(first).toEqual({ created: true, tool: expect.objectContaining({ name: 'simple', timeoutMs: 60_000, requiredScopes: ['a', 'b:x'] }) });
      await service.putServer('acme', server({ tools: ['simple'] }));
      published.length = 0;
      const second = await service.putTool('acme', builtinTool({ description: 'changed' }));
      expect(second.created).toBe(false);
      expect(published).toEqual([{ tenant: 'acme', servers: ['main'] }]);
      await expect(service.getTool('acme', 'simple')).resolves.toMatchObject({ description: 'changed', requiredScopes: [] });
    });

    it('reloads the snapshot before it publishes, so this replica serves the new version at once', async () => {
      const { service, catalog } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool({ requiredScopes: ['acme:read'] }));
      await service.putServer('acme', server({ tools: ['simple'] }));
      expect(catalog.getServer('acme', 'main')?.server.scopes).toEqual(['mcp', 'acme:read']);
    });

    it.each([
      [
        'an inputSchema Ajv cannot compile',
        builtinTool({ inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }),
        /inputSchema of simple does not compile/,
      ],
      ['an outputSchema Ajv cannot compile', builtinTool({ outputSchema: { type: 'object', required: 'a' } }), /outputSchema of simple does not compile/],
      [
        'a schema with a remote $ref',
        builtinTool({ inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } }),
        /inputSchema of simple/,
      ],
      ['an unknown built-in handler', builtinTool({ config: { handler: 'nowhere.nothing' } } as never), /no built-in implementation named nowhere\.nothing/],
      ['an HTTP tool with a non-http URL', builtinTool({ kind: 'http', config: { url: 'ftp://files.example.com/run' } } as never), /must be http or https/],
      [
        'x-mcp-header on an object property (S-117)',
        builtinTool({ inputSchema: { type: 'object', properties: { where: { type: 'object', 'x-mcp-header': 'Where' } } } }),
        /invalid x-mcp-header declaration: .*only string, integer and boolean/,
      ],
      [
        'an x-mcp-header name that is not a token (S-117)',
        builtinTool({ inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Two Words' } } } }),
        /invalid x-mcp-header declaration: .*not an HTTP token/,
      ],
      [
        'x-mcp-header names repeated ignoring case (S-117)',
        builtinTool({
          inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } } },
        }),
        /invalid x-mcp-header declaration: .*repeats/,
      ],
    ])('refuses %s with INVALID_PARAMS and stores nothing', async (_case, tool, message) => {
      const { service, repository, published } = setup();
      await service.putTenant('acme');
      published.length = 0;
      const error: unknown = await service.putTool('acme', tool).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringMatching(message) });
      expect(repository.tenants.get('acme')?.tools.size).toBe(0);
      expect(published).toEqual([]);
    });

    it('stores execution.taskSupport, lists the tool with it, and leaves the default (forbidden) unsaid', async () => {
      const { service, catalog } = setup();
      await service.putTenant('acme');
      const put = await service.putTool('acme', builtinTool({ execution: { taskSupport: 'required' } }));
      expect(put.tool.execution).toEqual({ taskSupport: 'required' });
      await service.putServer('acme', server({ tools: ['simple'] }));
      expect(catalog.getServer('acme', 'main')?.tools[0]?.wire.execution).toEqual({ taskSupport: 'required' });
      await service.putTool('acme', builtinTool({ execution: { taskSupport: 'forbidden' } }));
      const stored = await service.getTool('acme', 'simple');
      expect(stored).not.toHaveProperty('execution');
      expect(catalog.getServer('acme', 'main')?.tools[0]?.wire).not.toHaveProperty('execution');
    });

    it('stores an HTTP tool’s header values and shows them only as set, in every answer (issue 13 item 7)', async () => {
      const { service, repository, catalog } = setup();
      await service.putTenant('acme');
      const tool = builtinTool({ name: 'web', kind: 'http', config: { url: 'https://api.example.com/run', headers: { 'X-Api-Key': 'secret-1' } } } as never);
      const shown = { kind: 'http', config: { url: 'https://api.example.com/run', headers: { 'x-api-key': { set: true } } } };
      await expect(service.putTool('acme', tool)).resolves.toMatchObject({ created: true, tool: shown });
      await expect(service.getTool('acme', 'web')).resolves.toMatchObject(shown);
      const answers = JSON.stringify([await service.getTool('acme', 'web'), await service.listTools('acme')]);
      expect(answers).not.toContain('secret-1');
      // The executor itself keeps the value, for the tool's own requests.
      expect(repository.tenants.get('acme')?.tools.get('web')?.config).toEqual({ url: 'https://api.example.com/run', headers: { 'x-api-key': 'secret-1' } });
      await service.putServer('acme', server({ tools: ['web'] }));
      expect(catalog.getServer('acme', 'main')?.tools[0]?.runner).toEqual({
        kind: 'http',
        config: { url: 'https://api.example.com/run', headers: { 'x-api-key': 'secret-1' } },
      });
    });

    it('keeps header values an update does not name, so a tool read from the API can be written back (disable, enable)', async () => {
      const { service, repository } = setup();
      await service.putTenant('acme');
      await service.putTool(
        'acme',
        builtinTool({
          name: 'web',
          kind: 'http',
          config: { url: 'https://api.example.com/run', headers: { 'x-api-key': 'secret-1', 'x-tenant': 'acme' } },
        } as never),
      );
      const read = await service.getTool('acme', 'web');
      await expect(service.putTool('acme', { ...read, enabled: false } as never)).resolves.toMatchObject({ created: false, tool: { enabled: false } });
      await service.putTool(
        'acme',
        builtinTool({ name: 'web', kind: 'http', config: { url: 'https://api.example.com/v2', headers: { 'x-tenant': null } } } as never),
      );
      expect(repository.tenants.get('acme')?.tools.get('web')?.config).toEqual({ url: 'https://api.example.com/v2', headers: { 'x-api-key': 'secret-1' } });
    });

    it('refuses to carry stored header values to a URL of another origin, naming the headers and storing nothing', async () => {
      const { service, repository } = setup();
      await service.putTenant('acme');
      await service.putTool(
        'acme',
        builtinTool({ name: 'web', kind: 'http', config: { url: 'https://api.example.com/run', headers: { 'x-api-key': 'secret-1' } } } as never),
      );
      const error: unknown = await service
        .putTool('acme', builtinTool({ name: 'web', kind: 'http', config: { url: 'https://attacker.example.net/collect' } } as never))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('send x-api-key again') });
      expect(repository.tenants.get('acme')?.tools.get('web')?.config).toEqual({ url: 'https://api.example.com/run', headers: { 'x-api-key': 'secret-1' } });
    });

    it('answers NOT_FOUND for an unknown tenant', async () => {
      const { service } = setup();
      await expect(service.putTool('nobody', builtinTool())).rejects.toMatchObject({ code: WireErrorCode.NotFound });
    });
  });

  describe('getTool and listTools', () => {
    it("show an HTTP tool's last outbound failure (time, error id, kind, detail), and nothing for a tool without one", async () => {
      const { service, lastErrors } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool({ name: 'web', kind: 'http', config: { url: 'https://api.example.com/run' } } as never));
      await service.putTool('acme', builtinTool());
      const failure: ToolLastError = {
        at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
        errorId: 'e-1',
        kind: 'refused',
        detail: 'refused by the SSRF guard: api.example.com resolves to 10.0.0.1',
      };
      lastErrors.byTenant.set('acme', new Map([['web', failure]]));
      const lastError = { at: '2026-01-02T03:04:05.000Z', errorId: 'e-1', kind: 'refused', detail: failure.detail };
      await expect(service.getTool('acme', 'web')).resolves.toMatchObject({ name: 'web', lastError });
      await expect(service.getTool('acme', 'simple')).resolves.not.toHaveProperty('lastError');
      const { tools } = await service.listTools('acme');
      expect(tools.map((tool) => [tool.name, tool.lastError])).toEqual([
        ['simple', undefined],
        ['web', lastError],
      ]);
    });
  });

  describe('deleteTool', () => {
    it('removes the tool from the servers exposing it and publishes them', async () => {
      const { service, published, catalog } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool());
      await service.putTool('acme', builtinTool({ name: 'other' }));
      await service.putServer('acme', server({ tools: ['simple', 'other'] }));
      await service.putServer('acme', server({ name: 'unrelated', tools: ['other'] }));
      published.length = 0;
      await expect(service.deleteTool('acme', 'simple')).resolves.toEqual({ deleted: true });
      expect(published).toEqual([{ tenant: 'acme', servers: ['main'] }]);
      await expect(service.getServer('acme', 'main')).resolves.toMatchObject({ tools: ['other'] });
      expect(catalog.getServer('acme', 'main')?.tools.map((tool) => tool.record.name)).toEqual(['other']);
      await expect(service.deleteTool('acme', 'simple')).rejects.toMatchObject({ code: WireErrorCode.NotFound });
    });
  });

  describe('putServer', () => {
    it('refuses tools the tenant does not have, naming them, and stores nothing', async () => {
      const { service, repository } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool());
      const error: unknown = await service.putServer('acme', server({ tools: ['simple', 'ghost', 'phantom'] })).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('ghost, phantom') });
      expect(repository.tenants.get('acme')?.servers.size).toBe(0);
    });

    it('creates then replaces a server and publishes it', async () => {
      const { service, published } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool());
      published.length = 0;
      await expect(service.putServer('acme', server({ tools: ['simple', 'simple'], public: true }))).resolves.toEqual({
        created: true,
        server: { name: 'main', public: true, tools: ['simple'] },
      });
      await expect(service.putServer('acme', server({ title: 'Main' }))).resolves.toMatchObject({
        created: false,
        server: { title: 'Main', public: false, tools: [] },
      });
      expect(published).toEqual([
        { tenant: 'acme', servers: ['main'] },
        { tenant: 'acme', servers: ['main'] },
      ]);
      await expect(service.listServers('acme')).resolves.toEqual({ servers: [{ name: 'main', title: 'Main', public: false, tools: [] }] });
    });
  });

  describe('putServer with composition', () => {
    const searchTool = builtinTool({
      name: 'search',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, index: { type: 'string', enum: ['docs', 'code'] }, limit: { type: 'integer', minimum: 1 } },
        required: ['query', 'index', 'limit'],
      },
    });

    it('stores picks as picks next to plain names, and serves the renamed tool with its reduced schema', async () => {
      const { service, catalog } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool());
      await service.putTool('acme', searchTool);
      const pick = { tool: 'search', name: 'search_docs', title: 'Docs', fixedArguments: { index: 'docs' }, defaultArguments: { limit: 5 } };
      const written = await service.putServer(
        'acme',
        server({ tools: [pick, 'simple', { tool: 'search', name: 'search_code', fixedArguments: { index: 'code' } }] }),
      );
      const expected = ['search_code', 'search_docs', 'simple'];
      expect(written.server.tools.map((entry) => (typeof entry === 'string' ? entry : (entry.name ?? entry.tool)))).toEqual(expected);
      await expect(service.getServer('acme', 'main')).resolves.toEqual({
        name: 'main',
        public: false,
        tools: [{ tool: 'search', name: 'search_code', fixedArguments: { index: 'code' } }, pick, 'simple'],
      });
      const snapshot = catalog.getServer('acme', 'main');
      expect(snapshot?.tools.map((tool) => tool.wire.name)).toEqual(expected);
      expect(snapshot?.byName.get('search_docs')?.wire).toMatchObject({
        name: 'search_docs',
        title: 'Docs',
        inputSchema: { properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, default: 5 } }, required: ['query'] },
      });
      expect(snapshot?.byName.get('search_docs')?.record.name).toBe('search');
    });

    it('refuses two entries exposing one name, naming both', async () => {
      const { service, repository } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', builtinTool());
      await service.putTool('acme', searchTool);
      const error: unknown = await service
        .putServer('acme', server({ tools: ['simple', { tool: 'search', name: 'simple', fixedArguments: { index: 'docs' } }] }))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: WireErrorCode.InvalidParams,
        message: expect.stringMatching(/two tools named simple: tools entry "simple" and tools pick of "search" as "simple"/),
      });
      expect(repository.tenants.get('acme')?.servers.size).toBe(0);
    });

    it('refuses fixed or default arguments the tool does not have, or whose value its schema refuses', async () => {
      const { service } = setup();
      await service.putTenant('acme');
      await service.putTool('acme', searchTool);
      const refusal = (pick: toolExecutor.ToolPick) =>
        service.putServer('acme', server({ tools: [pick] })).then(
          () => 'stored',
          (error: Error) => error.message,
        );
      await expect(refusal({ tool: 'search', fixedArguments: { region: 'eu' } })).resolves.toMatch(/fixed argument region: search has no such argument/);
      await expect(refusal({ tool: 'search', fixedArguments: { index: 'mail' } })).resolves.toMatch(/fixed argument index of search: the value does not match/);
      await expect(refusal({ tool: 'search', defaultArguments: { limit: 0 } })).resolves.toMatch(/default argument limit of search: the value does not match/);
      await expect(refusal({ tool: 'search', fixedArguments: { index: 'docs' }, defaultArguments: { index: 'code' } })).resolves.toMatch(
        /argument index of search is both fixed and defaulted/,
      );
      await expect(refusal({ tool: 'search', fixedArguments: { index: 'docs' } })).resolves.toBe('stored');
    });

    it('refuses an upstream source the tenant does not have', async () => {
      const { service } = setup();
      await service.putTenant('acme');
      const error: unknown = await service.putServer('acme', server({ sources: [{ source: 'ghost' }] })).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('upstream source tenant acme does not have: ghost') });
    });
  });

  describe('deleteServer and deleteTenant', () => {
    it('deletes a server, then the tenant with every server it still had', async () => {
      const { service, published, catalog } = setup();
      await service.putTenant('acme');
      await service.putServer('acme', server());
      await service.putServer('acme', server({ name: 'second' }));
      published.length = 0;
      await service.deleteServer('acme', 'main');
      expect(catalog.getServer('acme', 'main')).toBeUndefined();
      await expect(service.deleteServer('acme', 'main')).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await service.deleteTenant('acme');
      expect(catalog.getServer('acme', 'second')).toBeUndefined();
      expect(published).toEqual([
        { tenant: 'acme', servers: ['main'] },
        { tenant: 'acme', servers: ['second'] },
      ]);
      await expect(service.deleteTenant('acme')).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await expect(service.listTools('acme')).rejects.toMatchObject({ code: WireErrorCode.NotFound });
    });
  });
});
