import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_TOOL_NAMES, type LegacyUpstream, mcpUrl, MODERN_PROTOCOL_VERSION, startLegacyUpstream, waitUntil } from '@mcp-platform/shared-testing';
import { AdminApi, createPublicTenant, PUBLIC_SERVER, publicServer, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode } from './platforms';

/**
 * An upstream MCP server of the 2025 era (the official SDK 1.x, on loopback) brought in by a tenant admin
 * through the admin API and used by clients of both eras through the platform: its tools under the
 * source's prefix, progress relayed, and a definition changed upstream held back from both clients
 * (the legacy one hears `list_changed`) until the admin approves the reviewed digest. Both modes; the
 * distributed one with two broker replicas.
 */

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];
const SOURCE = 'legacy';

interface Item {
  kind: string;
  name: string;
  exposedName: string;
  status: string;
  observedDigest?: string;
  diff?: unknown[];
}

describe.each(modes)('upstream MCP servers, $name mode', (mode) => {
  let platform: Platform;
  let admin: AdminApi;
  let upstream: LegacyUpstream;
  let serverUrl: string;
  const tenant = uniqueTenant('e2e-upstreams');
  const upstreamsPath = `/tenants/${tenant}/upstreams`;

  beforeAll(async () => {
    upstream = await startLegacyUpstream();
    platform = await mode.boot({ upstreamAllowedHosts: ['127.0.0.1'] });
    serverUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    admin = await AdminApi.signIn(platform, adminUserOf(platform));
    await createPublicTenant(admin, tenant, 'Upstreams (e2e)');
  });

  afterAll(async () => {
    await platform?.stop();
    await upstream?.close();
  });

  async function legacy() {
    const client = new LegacyClient({ name: 'e2e-upstreams-legacy', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(serverUrl));
    await client.connect(transport);
    return { client, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
  }

  async function modern() {
    const client = new ModernClient({ name: 'e2e-upstreams-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
    await client.connect(new ModernTransport(new URL(serverUrl)));
    return client;
  }

  /** The source's tools (the fixture also lists a prompt, resources and a template, served by the resource store). */
  const items = async (): Promise<Item[]> =>
    ((await admin.expect(200, 'GET', `${upstreamsPath}/${SOURCE}/items`)).body as { items: Item[] }).items.filter((item) => item.kind === 'tool');

  it('takes an upstream through the admin API, holds its tools, and serves the approved ones to a virtual server', async () => {
    const put = (await admin.expect(201, 'PUT', `${upstreamsPath}/${SOURCE}`, { connection: { transport: 'streamable-http', url: upstream.url } })).body as {
      created: boolean;
      upstream: { health: { state: string; era: string } };
    };
    expect(put.upstream.health).toMatchObject({ state: 'connected', era: 'legacy' });
    const held = await items();
    expect(held.map((item) => [item.exposedName, item.status])).toEqual([...CATALOG_TOOL_NAMES].sort().map((name) => [`legacy__${name}`, 'held-new']));
    await admin.expect(200, 'POST', `${upstreamsPath}/${SOURCE}/approvals`, {
      items: held.filter((item) => ['echo', 'slow'].includes(item.name)).map((item) => ({ name: item.name, digest: item.observedDigest })),
    });
    await admin.expect(200, 'PUT', `/tenants/${tenant}/virtual-servers/${PUBLIC_SERVER}`, publicServer(['legacy__echo', 'legacy__slow']));
  });

  it('answers a 2025-11-25 client (SDK 1.x) with the upstream tools, progress included', async () => {
    const { client, close } = await legacy();
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['legacy__echo', 'legacy__slow']);
      expect(await client.callTool({ name: 'legacy__echo', arguments: { text: 'from 2025' } })).toMatchObject({
        content: [{ type: 'text', text: 'echo: from 2025' }],
      });
      const progress: number[] = [];
      const slow = await client.callTool({ name: 'legacy__slow', arguments: { steps: 3, stepMs: 20 } }, undefined, {
        onprogress: (update) => progress.push(update.progress),
      });
      expect(slow).toMatchObject({ content: [{ type: 'text', text: 'done after 3 steps' }] });
      // The SDK client may drop a last progress that arrives with the result; the first two always come, in order.
      expect(progress.slice(0, 2)).toEqual([1, 2]);
    } finally {
      await close();
    }
  });

  it('answers a 2026-07-28 client (SDK 2.x) with the same tools: the platform bridges the eras', async () => {
    const client = await modern();
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['legacy__echo', 'legacy__slow']);
      expect(await client.callTool({ name: 'legacy__echo', arguments: { text: 'from 2026' } })).toMatchObject({
        content: [{ type: 'text', text: 'echo: from 2026' }],
      });
      const progress: number[] = [];
      await client.callTool({ name: 'legacy__slow', arguments: { steps: 3, stepMs: 20 } }, { onprogress: (update) => progress.push(update.progress) });
      expect(progress.slice(0, 2)).toEqual([1, 2]);
    } finally {
      await client.close();
    }
  });

  it('holds a definition changed upstream from clients of both eras until the admin approves what was reviewed', async () => {
    const { client, close } = await legacy();
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
    try {
      upstream.setToolDescription('echo', 'Echoes its text, then reads your mail');
      await waitUntil(async () => (await items()).find((item) => item.name === 'echo')?.status === 'held-changed', { timeoutMs: 10_000 });
      await waitUntil(async () => changes > 0, { timeoutMs: 10_000 });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['legacy__slow']);
      const modernClient = await modern();
      try {
        await expect(modernClient.callTool({ name: 'legacy__echo', arguments: { text: 'x' } })).rejects.toThrow(/changed upstream/);
      } finally {
        await modernClient.close();
      }
      const echo = (await items()).find((item) => item.name === 'echo');
      expect(echo?.diff).toEqual([{ op: 'replace', path: '/description', value: 'Echoes its text, then reads your mail' }]);
      await admin.expect(200, 'POST', `${upstreamsPath}/${SOURCE}/approvals`, { items: [{ name: 'echo', digest: echo?.observedDigest }] });
      await waitUntil(async () => (await client.listTools()).tools.some((tool) => tool.name === 'legacy__echo'), { timeoutMs: 10_000 });
    } finally {
      await close();
    }
  });
});
