import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { REQUIRED_SCOPES_META_KEY } from '@mcp-platform/protocol-mcp';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { CATALOG_TOOL_NAMES, type LegacyUpstream, serviceSetups, startLegacyUpstream, toolResultText } from '@mcp-platform/shared-testing';
import { CatalogService } from '../src/catalog/catalog.service';
import { TOOL_EXECUTOR_CONNECTION } from '../src/tool-executor.constants';
import { bootUpstreamExecutor, resultOf } from './executor-calls';

const run = `co${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const TENANT = 'demo';

const admin: Principal = { subject: 'admin-of-demo', tenant: TENANT, clientId: 'test-client', scopes: ['mcp'], anonymous: false };
const as = { context: { principal: admin } };
/** A caller who holds the scope of `hash_text` too. */
const owner = { context: { principal: { ...admin, scopes: ['mcp', 'demo:crypto'] } } };

const setups = serviceSetups('tool-executor', run);

describe.each(setups)('composition of virtual servers over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;
  let upstream: LegacyUpstream;

  const putServer = (server: toolExecutor.VirtualServerDefinitionInput) =>
    bus.request(toolExecutor.putServerDefinition, { tenant: TENANT, server: server as toolExecutor.VirtualServerDefinitionRecord }, as);
  const getServer = (name: string) => bus.request(toolExecutor.getServerDefinition, { tenant: TENANT, name }, as);
  const listed = async (server: string) => (await bus.request(toolExecutor.listTools, { tenant: TENANT, server }, owner)).tools;
  const call = (server: string, name: string, args: Record<string, unknown> = {}) =>
    resultOf(
      bus.request(toolExecutor.callTool, { tenant: TENANT, server, callId: `c-${randomUUID()}`, name, arguments: args, protocolVersion: '2025-11-25' }, as),
    );
  const items = async (source: string) => (await bus.request(toolExecutor.listUpstreamItems, { tenant: TENANT, source }, as)).items;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootUpstreamExecutor(setup.messaging(), database.options);
    bus = app.get(MessageBus);
    upstream = await startLegacyUpstream();
    await bus.request(
      toolExecutor.putUpstream,
      { tenant: TENANT, upstream: { name: 'lg', connection: { transport: 'streamable-http', url: upstream.url }, policy: 'approve-all' } },
      as,
    );
  });

  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await drop?.();
  });

  it('keeps the tools of existing servers when the composition migration is undone and run again', async () => {
    const before = (await listed('default')).map((tool) => tool.name);
    expect(before.length).toBeGreaterThan(3);
    const dataSource = app.get<DataSource>(getDataSourceToken(TOOL_EXECUTOR_CONNECTION));
    // Undo the later migrations too, down to and including AddServerComposition.
    const applied = (await dataSource.query(`SELECT "name" FROM "tool_executor"."migrations" ORDER BY "timestamp" DESC`)) as Array<{ name: string }>;
    const undo = applied.findIndex((migration) => migration.name === 'AddServerComposition1767916800000') + 1;
    expect(undo).toBeGreaterThan(0);
    for (let step = 0; step < undo; step += 1) await dataSource.undoLastMigration();
    await dataSource.runMigrations();
    await app.get(CatalogService).reloadTenant(TENANT);
    expect((await listed('default')).map((tool) => tool.name)).toEqual(before);
    await expect(getServer('default')).resolves.toMatchObject({ tools: before });
  });

  it('serves a renamed tool with fixed and default arguments, and reads the definition back as written', async () => {
    const pick = {
      tool: 'lg__slow',
      name: 'quick',
      title: 'Quick',
      description: 'Works a little',
      fixedArguments: { stepMs: 1 },
      defaultArguments: { steps: 2 },
    };
    const { created, server } = await putServer({
      name: 'composed',
      tools: [pick, 'calculate', { tool: 'hash_text', name: 'md5', fixedArguments: { algorithm: 'md5' } }],
    });
    expect(created).toBe(true);
    const expected = ['calculate', { tool: 'hash_text', name: 'md5', fixedArguments: { algorithm: 'md5' } }, pick];
    expect(server.tools).toEqual(expected);
    await expect(getServer('composed')).resolves.toEqual({ name: 'composed', public: false, tools: expected });

    const quick = (await listed('composed')).find((tool) => tool.name === 'quick');
    expect(quick).toMatchObject({ name: 'quick', title: 'Quick', description: 'Works a little' });
    expect(quick?.inputSchema.properties).toEqual({ steps: expect.objectContaining({ type: 'integer', default: 2 }) });
    expect(quick?.inputSchema.required ?? []).not.toContain('steps');
    expect((await listed('composed')).map((tool) => tool.name)).toEqual(['calculate', 'md5', 'quick']);

    expect(toolResultText(await call('composed', 'quick'))).toBe('done after 2 steps');
    expect(toolResultText(await call('composed', 'quick', { steps: 3 }))).toBe('done after 3 steps');
    await expect(call('composed', 'quick', { steps: 1, stepMs: 0 })).rejects.toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: 'Invalid arguments for tool quick: argument stepMs is fixed by this server',
    });
    expect(await call('composed', 'quick', { steps: -1 })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('tool quick') }] });
    await expect(call('composed', 'lg__slow', { steps: 1 })).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: lg__slow' });
    // The renamed tool keeps the scopes of the catalog tool, and its errors name it by its exposed name.
    await expect(call('composed', 'md5', { text: 'x' })).rejects.toMatchObject({
      code: WireErrorCode.InsufficientScope,
      message: 'Tool md5 requires scope demo:crypto',
    });
    const hashed = await resultOf(
      bus.request(
        toolExecutor.callTool,
        { tenant: TENANT, server: 'composed', callId: `c-${randomUUID()}`, name: 'md5', arguments: { text: 'x' }, protocolVersion: '2025-11-25' },
        owner,
      ),
    );
    expect(hashed.structuredContent).toEqual({ algorithm: 'md5', hex: '9dd4e461268c8034f5c8564e155c67a6' });
  });

  it("gives an upstream tool scopes on one server: listed and callable only with them, offered by the server's authorization", async () => {
    const pick = { tool: 'lg__echo', name: 'guarded_echo', scopes: ['lg:write'] };
    await putServer({ name: 'scoped', tools: [pick, 'lg__echo'] });
    await expect(getServer('scoped')).resolves.toMatchObject({ tools: [pick, 'lg__echo'] });
    await expect(bus.request(toolExecutor.getVirtualServer, { tenant: TENANT, server: 'scoped' }, as)).resolves.toMatchObject({
      scopes: ['mcp', 'lg:write'],
    });
    // The same catalog tool, exposed without the pick, needs nothing more.
    expect((await listed('scoped')).map((tool) => tool.name)).toEqual(['lg__echo']);
    expect(toolResultText(await call('scoped', 'lg__echo', { text: 'open' }))).toBe('echo: open');
    await expect(call('scoped', 'guarded_echo', { text: 'x' })).rejects.toMatchObject({
      code: WireErrorCode.InsufficientScope,
      message: 'Tool guarded_echo requires scope lg:write',
      data: { scopes: ['mcp', 'lg:write'] },
    });
    const writer = { context: { principal: { ...admin, scopes: ['mcp', 'lg:write'] } } };
    const tools = (await bus.request(toolExecutor.listTools, { tenant: TENANT, server: 'scoped' }, writer)).tools;
    expect(tools.find((tool) => tool.name === 'guarded_echo')?._meta).toMatchObject({ [REQUIRED_SCOPES_META_KEY]: ['lg:write'] });
    const echoed = await resultOf(
      bus.request(
        toolExecutor.callTool,
        { tenant: TENANT, server: 'scoped', callId: `c-${randomUUID()}`, name: 'guarded_echo', arguments: { text: 'guarded' }, protocolVersion: '2025-11-25' },
        writer,
      ),
    );
    expect(toolResultText(echoed)).toBe('echo: guarded');
  });

  it('refuses a name collision and bad fixed arguments at write time, storing nothing', async () => {
    const collision = putServer({ name: 'clash', tools: [{ tool: 'calculate', name: 'lg__echo' }], sources: [{ source: 'lg' }] });
    await expect(collision).rejects.toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: expect.stringContaining('two tools named lg__echo: tools pick of "calculate" as "lg__echo" and source "lg" (tool "lg__echo")'),
    });
    await expect(putServer({ name: 'clash', tools: [{ tool: 'lg__slow', fixedArguments: { steps: 'many' } }] })).rejects.toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: expect.stringContaining('fixed argument steps of lg__slow: the value does not match its schema'),
    });
    await expect(getServer('clash')).rejects.toMatchObject({ code: WireErrorCode.NotFound });
  });

  it('exposes every approved tool of a source but the hidden one, a pick winning over the source entry', async () => {
    const { server } = await putServer({ name: 'mirror', tools: [{ tool: 'lg__echo', name: 'say' }], sources: [{ source: 'lg', hidden: ['lg__fail'] }] });
    expect(server.sources).toEqual([{ source: 'lg', hidden: ['lg__fail'] }]);
    const names = (await listed('mirror')).map((tool) => tool.name);
    const expected = [
      'say',
      ...CATALOG_TOOL_NAMES.filter((name) => name !== 'fail' && name !== 'echo')
        .map((name) => `lg__${name}`)
        .sort(),
    ].sort();
    expect(names).toEqual(expected);
    expect(toolResultText(await call('mirror', 'say', { text: 'hi' }))).toBe('echo: hi');
    await expect(call('mirror', 'lg__fail')).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: lg__fail' });
  });

  it("shows a held-back source's tools as they are approved, and refuses a held renamed one saying why", async () => {
    await bus.request(
      toolExecutor.putUpstream,
      { tenant: TENANT, upstream: { name: 'held', connection: { transport: 'streamable-http', url: upstream.url } } },
      as,
    );
    await putServer({ name: 'later', sources: [{ source: 'held', hidden: ['held__fail'] }] });
    expect(await listed('later')).toEqual([]);
    const chosen = (await items('held')).filter((item) => ['echo', 'fail', 'slow'].includes(item.name));
    await bus.request(
      toolExecutor.approveUpstreamItems,
      { tenant: TENANT, source: 'held', actor: admin.subject, items: chosen.map((item) => ({ name: item.name, digest: item.observedDigest ?? '' })) },
      as,
    );
    expect((await listed('later')).map((tool) => tool.name)).toEqual(['held__echo', 'held__slow']);

    await putServer({ name: 'later', tools: [{ tool: 'held__echo', name: 'shout' }], sources: [{ source: 'held', hidden: ['held__fail'] }] });
    upstream.setToolDescription('echo', 'Echoes, and then some');
    await expect.poll(async () => (await items('held')).find((item) => item.name === 'echo')?.status, { timeout: 5_000 }).toBe('held-changed');
    expect((await listed('later')).map((tool) => tool.name)).toEqual(['held__slow']);
    await expect(call('later', 'shout', { text: 'x' })).rejects.toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: expect.stringMatching(/^Tool shout is unavailable: its definition changed upstream/),
    });
  });
});
