import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LegacyUpstream, mcpUrl, MODERN_PROTOCOL_VERSION, startLegacyUpstream } from '@mcp-platform/shared-testing';
import { AdminApi, createPublicTenant, PUBLIC_SERVER, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode } from './platforms';

/**
 * Composition (issue 15 §3) through the admin API, seen by clients of both eras: a virtual server
 * exposes an upstream's tools renamed, one with a fixed argument and one with a default, and every
 * other tool of the source but a hidden one. Clients see the exposed names and the reduced schemas,
 * and call the tools by those names. Both modes; the distributed one with two broker replicas.
 */

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];
const SOURCE = 'lg';

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { properties?: Record<string, Record<string, unknown>>; required?: string[] };
}

describe.each(modes)('composition of a virtual server, $name mode', (mode) => {
  let platform: Platform;
  let admin: AdminApi;
  let upstream: LegacyUpstream;
  let serverUrl: string;
  const tenant = uniqueTenant('e2e-composition');
  const serverPath = `/tenants/${tenant}/virtual-servers/${PUBLIC_SERVER}`;
  const hidden = [`${SOURCE}__fail`, `${SOURCE}__ask`, `${SOURCE}__sample`, `${SOURCE}__roots`];
  const definition = {
    public: true,
    tools: [
      { tool: `${SOURCE}__echo`, name: 'say', description: 'Says the text back', defaultArguments: { text: 'hello' } },
      { tool: `${SOURCE}__slow`, name: 'quick', fixedArguments: { stepMs: 1 } },
    ],
    sources: [{ source: SOURCE, hidden }],
  };

  beforeAll(async () => {
    upstream = await startLegacyUpstream();
    platform = await mode.boot({ upstreamAllowedHosts: ['127.0.0.1'] });
    serverUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    admin = await AdminApi.signIn(platform, adminUserOf(platform));
    await createPublicTenant(admin, tenant, 'Composition (e2e)');
    await admin.expect(201, 'PUT', `/tenants/${tenant}/upstreams/${SOURCE}`, {
      connection: { transport: 'streamable-http', url: upstream.url },
      policy: 'approve-all',
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await upstream?.close();
  });

  /** What both eras must see: the exposed names, the overrides, and the schemas without the fixed argument and with the default. */
  function expectComposed(tools: ListedTool[]): void {
    expect(tools.map((tool) => tool.name)).toEqual([`${SOURCE}__log`, 'quick', 'say']);
    const say = tools.find((tool) => tool.name === 'say');
    expect(say?.description).toBe('Says the text back');
    expect(say?.inputSchema.properties?.['text']).toMatchObject({ type: 'string', default: 'hello' });
    expect(say?.inputSchema.required ?? []).not.toContain('text');
    const quick = tools.find((tool) => tool.name === 'quick');
    expect(Object.keys(quick?.inputSchema.properties ?? {})).toEqual(['steps']);
    expect(quick?.inputSchema.required ?? []).not.toContain('stepMs');
  }

  it('takes the composition through the admin API and reads it back as written', async () => {
    await admin.expect(200, 'PUT', serverPath, definition);
    const read = (await admin.expect(200, 'GET', serverPath)).body as Record<string, unknown>;
    expect(read).toMatchObject({
      tools: [definition.tools[1], definition.tools[0]],
      sources: [{ source: SOURCE, hidden: [...hidden].sort() }],
    });
    const clash = await admin.request('PUT', serverPath, { ...definition, tools: [...definition.tools, { tool: `${SOURCE}__echo`, name: `${SOURCE}__log` }] });
    expect(clash.status).toBe(400);
    expect(JSON.stringify(clash.body)).toContain(`two tools named ${SOURCE}__log`);
  });

  it('shows a 2025-11-25 client (SDK 1.x) the renamed tools with their reduced schemas, and runs them', async () => {
    const client = new LegacyClient({ name: 'e2e-composition-legacy', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(serverUrl));
    await client.connect(transport);
    try {
      expectComposed((await client.listTools()).tools as ListedTool[]);
      expect(await client.callTool({ name: 'say', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'echo: hello' }] });
      expect(await client.callTool({ name: 'quick', arguments: { steps: 2 } })).toMatchObject({ content: [{ type: 'text', text: 'done after 2 steps' }] });
      await expect(client.callTool({ name: 'quick', arguments: { steps: 1, stepMs: 0 } })).rejects.toThrow(/argument stepMs is fixed by this server/);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('shows a 2026-07-28 client (SDK 2.x) the same, and runs them', async () => {
    const client = new ModernClient({ name: 'e2e-composition-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
    await client.connect(new ModernTransport(new URL(serverUrl)));
    try {
      expectComposed((await client.listTools()).tools as ListedTool[]);
      expect(await client.callTool({ name: 'say', arguments: { text: 'from 2026' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: from 2026' }] });
      expect(await client.callTool({ name: 'quick', arguments: {} })).toMatchObject({ isError: true });
      expect(await client.callTool({ name: 'quick', arguments: { steps: 1 } })).toMatchObject({ content: [{ type: 'text', text: 'done after 1 steps' }] });
      await expect(client.callTool({ name: 'quick', arguments: { steps: 1, stepMs: 0 } })).rejects.toThrow(/argument stepMs is fixed by this server/);
    } finally {
      await client.close();
    }
  });
});
